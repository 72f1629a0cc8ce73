package io.idempotent.woven;

import io.idempotent.IdempotencyEvent;
import io.idempotent.ManualTimeSource;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Installs a fresh store for one test and collects the events it produces. On fake time, the store and
 * the engine (its waits and lease renewals) share one ticker, which only the test moves.
 */
final class Fixture {

  /** The store's and the engine's time when the fixture runs on fake time; null on real time. */
  final ManualTimeSource ticker;
  final InMemoryTestStore store;
  final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

  private Fixture(ManualTimeSource ticker, LongSupplier time, Consumer<IdempotencyConfig.Builder> custom) {
    this.ticker = ticker;
    // outcomes kept as JSON only, like a persistent store, so replays go through the codec
    this.store = new InMemoryTestStore(time, true);
    IdempotencyConfig.Builder b = IdempotencyConfig.builder().store(store).listener(events::add);
    if (ticker != null) {
      b.time(ticker);
    }
    custom.accept(b);
    Idempotency.install(b.build());
  }

  static Fixture fakeTime() {
    return fakeTime(b -> {});
  }

  static Fixture fakeTime(Consumer<IdempotencyConfig.Builder> custom) {
    ManualTimeSource t = new ManualTimeSource();
    return new Fixture(t, t, custom);
  }

  static Fixture realTime(Consumer<IdempotencyConfig.Builder> custom) {
    return new Fixture(null, System::nanoTime, custom);
  }

  /** A call running on a thread of its own, so that a test can tell when it waits on the ticker. */
  record Running<T>(Thread thread, FutureTask<T> result) {}

  static <T> Running<T> start(Callable<T> call) {
    FutureTask<T> result = new FutureTask<>(call);
    Thread thread = new Thread(result, "test-call");
    thread.setDaemon(true);
    thread.start();
    return new Running<>(thread, result);
  }

  List<IdempotencyEvent.Type> eventTypes() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }
}
