package io.idempotent.woven;

import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.IdempotencyEvent;
import io.idempotent.testkit.FakeTicker;
import io.idempotent.testkit.InMemoryTestStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/** Installs a fresh store for one test and collects the events it produces. */
final class Fixture {

  /** The store's clock when the fixture runs on fake time; null on real time. */
  final FakeTicker ticker;
  final InMemoryTestStore store;
  final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

  private Fixture(FakeTicker ticker, LongSupplier time, Consumer<IdempotencyConfig.Builder> custom) {
    this.ticker = ticker;
    // outcomes kept as JSON only, like a persistent store, so replays go through the codec
    this.store = new InMemoryTestStore(time, true);
    IdempotencyConfig.Builder b = IdempotencyConfig.builder().store(store).listener(events::add);
    custom.accept(b);
    Idempotency.install(b.build());
  }

  static Fixture fakeTime() {
    return fakeTime(b -> {});
  }

  static Fixture fakeTime(Consumer<IdempotencyConfig.Builder> custom) {
    FakeTicker t = new FakeTicker();
    return new Fixture(t, t, custom);
  }

  static Fixture realTime(Consumer<IdempotencyConfig.Builder> custom) {
    return new Fixture(null, System::nanoTime, custom);
  }

  List<IdempotencyEvent.Type> eventTypes() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }
}
