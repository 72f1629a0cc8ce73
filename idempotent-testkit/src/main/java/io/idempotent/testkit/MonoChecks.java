package io.idempotent.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentMono;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The contract's reactive calls ({@link IdempotentMono}) on a store: kept apart so that the contract
 * class loads without Reactor, whose checks it then skips.
 */
final class MonoChecks {

  private static final Duration LONG = Duration.ofSeconds(60);

  private MonoChecks() {}

  static boolean reactorPresent() {
    try {
      Class.forName("reactor.core.publisher.Mono", false, MonoChecks.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /**
   * Sixteen subscriptions of one key at once, from subscriber threads, with every store call on one
   * thread: one run, fifteen replays of its value. A duplicate that held a thread while it waited would
   * hold the only one, and the first call's outcome could never be recorded.
   */
  static void burstOfWaitingDuplicates(IdempotencyStore store, String ns) {
    ThreadRecordingStore recording = new ThreadRecordingStore(store);
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(recording).build());
    Scheduler storeCalls = Schedulers.newSingle("kit-store-calls");
    Scheduler subscribers = Schedulers.newParallel("kit-subscriber", 4);
    AtomicInteger runs = new AtomicInteger();
    try {
      List<CallResult<String>> results = Flux.range(0, 16)
          .flatMap(i -> IdempotentMono.execute(
                  idempotency.call(ns, String.class).key("order-1").onInProgress(OnInProgress.WAIT)
                      .waitTimeout(LONG),
                  () -> Mono.delay(Duration.ofMillis(300)).map(t -> "paid #" + runs.incrementAndGet()),
                  storeCalls)
              .subscribeOn(subscribers), 16)
          .collectList()
          .block(LONG);
      assertThat(results).hasSize(16).extracting(CallResult::value).containsOnly("paid #1");
      assertThat(results).filteredOn(r -> r.outcome() == CallOutcome.EXECUTED).hasSize(1);
      assertThat(results).filteredOn(CallResult::replayed).hasSize(15);
      assertThat(runs).hasValue(1);
      assertThat(recording.threads()).as("the threads the store was called on").isNotEmpty()
          .allSatisfy(name -> assertThat(name).startsWith("kit-store-calls-"));
    } finally {
      storeCalls.dispose();
      subscribers.dispose();
    }
  }

  /**
   * A call cancelled while its body runs leaves the body to finish (its effect may have happened) and records
   * its value, which a retry replays; an error releases the key, so a retry runs.
   */
  static void cancelledThenRecorded_failedThenReleased(IdempotencyStore store, String ns) throws InterruptedException {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger cancelled = new AtomicInteger();
    Sinks.One<String> gate = Sinks.one();
    Mono<CallResult<String>> gated = IdempotentMono.execute(idempotency.call(ns, String.class).key("k"), () -> {
      runs.incrementAndGet();
      return gate.asMono().doOnCancel(cancelled::incrementAndGet);
    });
    Disposable subscriber = gated.subscribe();
    awaitValue(runs, 1);
    subscriber.dispose();
    assertThatThrownBy(() -> gated.block(LONG)).as("the body still runs: its claim is held")
        .isInstanceOf(IdempotencyInProgressException.class);
    gate.tryEmitValue("paid #1");
    CallResult<String> retry = untilNotInProgress(gated);
    assertThat(retry).isEqualTo(new CallResult<>("paid #1", CallOutcome.REPLAYED));
    assertThat(runs).hasValue(1);
    assertThat(cancelled).as("the body was not cancelled").hasValue(0);

    AtomicInteger attempts = new AtomicInteger();
    Mono<CallResult<String>> flaky = IdempotentMono.execute(idempotency.call(ns, String.class).key("f"),
        () -> attempts.incrementAndGet() == 1 ? Mono.error(new IllegalStateException("gateway timeout"))
            : Mono.just("paid #" + attempts.get()));
    assertThatThrownBy(() -> flaky.block(LONG)).isInstanceOf(IllegalStateException.class)
        .hasMessage("gateway timeout");
    assertThat(flaky.block(LONG)).isEqualTo(new CallResult<>("paid #2", CallOutcome.EXECUTED));
    assertThat(flaky.block(LONG)).isEqualTo(new CallResult<>("paid #2", CallOutcome.REPLAYED));
    assertThat(attempts).hasValue(2);
  }

  private static CallResult<String> untilNotInProgress(Mono<CallResult<String>> call) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (true) {
      try {
        return call.block(LONG);
      } catch (IdempotencyInProgressException e) {
        assertThat(System.nanoTime()).as("recorded within %s", LONG).isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  private static void awaitValue(AtomicInteger n, int value) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (n.get() < value && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(n).hasValue(value);
  }
}
