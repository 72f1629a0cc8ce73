package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyObserver;
import io.idempotent.runtime.Idempotency;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/** Woven methods that return a Mono: claimed when subscribed, recorded when it completes (docs/REACTIVE.md). */
class MonoResultsTest {

  private static final Duration LONG = Duration.ofSeconds(20);
  private final ReactiveOrders orders = new ReactiveOrders();
  private Fixture fixture;

  @BeforeEach
  void install() {
    fixture = Fixture.realTime(b -> {});
  }

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void aMonoNeverSubscribed_runsNothingAndClaimsNothing_eachSubscriptionIsACall() {
    Mono<Receipt> charge = orders.charge("k", 5);
    assertThat(orders.runs("k")).isZero();
    assertThat(fixture.store.claims()).isZero();

    Receipt first = charge.block(LONG);
    assertThat(first).isEqualTo(new Receipt("k", 5, Instant.EPOCH));
    assertThat(orders.runs("k")).isEqualTo(1);

    Receipt again = charge.block(LONG); // the same Mono subscribed again: a second call, replayed
    Receipt fromANewCall = orders.charge("k", 5).block(LONG);
    assertThat(again).isEqualTo(first).isNotSameAs(first);
    assertThat(fromANewCall).isEqualTo(first);
    assertThat(orders.runs("k")).isEqualTo(1);
    assertThat(fixture.store.claims()).isEqualTo(3);
  }

  @Test
  void anError_releasesTheKey_aRetryRuns() {
    assertThatThrownBy(() -> orders.failsFirst("k").block(LONG)).hasMessageContaining("gateway timeout");
    assertThat(orders.failsFirst("k").block(LONG)).isEqualTo(new Receipt("k", 1, Instant.EPOCH));
    assertThat(orders.runs("k")).isEqualTo(2);
  }

  @Test
  void aMethodThatThrowsBeforeItsMono_releasesTheKey_andTheErrorIsTheMonos() {
    Mono<Receipt> call = orders.throwsBeforeItsMono("k"); // nothing runs yet: the method runs when subscribed
    assertThat(orders.runs("k")).isZero();
    assertThatThrownBy(() -> call.block(LONG)).isInstanceOf(IllegalArgumentException.class);
    assertThat(orders.throwsBeforeItsMono("k").block(LONG)).isEqualTo(new Receipt("k", 2, Instant.EPOCH));
    assertThat(orders.runs("k")).isEqualTo(2);
  }

  @Test
  void aFinalException_isRecorded_andReplayedWithoutRunning() {
    assertThatThrownBy(() -> orders.declined("k").block(LONG)).isInstanceOf(Declined.class)
        .hasMessage("card declined for k");
    assertThatThrownBy(() -> orders.declined("k").block(LONG)).isInstanceOf(Declined.class)
        .hasMessage("card declined for k");
    assertThat(orders.runs("k")).isEqualTo(1);
  }

  @Test
  void cancellation_leavesTheRunningMonoToFinish_andItsValueIsRecordedAndReplayed() throws Exception {
    Disposable subscription = orders.gated("k").subscribe();
    awaitRuns("k", 1);
    subscription.dispose(); // the subscriber is gone; the method's effect may have happened already
    assertThatThrownBy(() -> orders.gated("k").block(LONG)).as("still running: its claim is held")
        .isInstanceOf(IdempotencyInProgressException.class);

    orders.gate.tryEmitValue(new Receipt("k", 9, Instant.EPOCH)); // the method's Mono ends after all
    assertThat(await(() -> orders.gated("k").block(LONG))).isEqualTo(new Receipt("k", 9, Instant.EPOCH));
    assertThat(orders.runs("k")).as("the retry replayed it").isEqualTo(1);
    assertThat(orders.cancelled.get()).as("the method's Mono was not cancelled").isZero();
  }

  @Test
  void aDuplicateInProgress_isRefused_orSkippedAsAnEmptyMono() throws Exception {
    Disposable first = orders.gated("k").subscribe();
    awaitRuns("k", 1);
    assertThatThrownBy(() -> orders.gated("k").block(LONG)).isInstanceOf(IdempotencyInProgressException.class);
    Disposable skipping = orders.gatedSkipping("s").subscribe();
    awaitRuns("s", 1);
    assertThat(orders.gatedSkipping("s").blockOptional(LONG)).isEmpty();
    assertThat(orders.runs("k")).isEqualTo(1);
    assertThat(orders.runs("s")).isEqualTo(1);
    first.dispose();
    skipping.dispose();
  }

  @Test
  void waitingDuplicates_getTheFirstCallsValue_whenItCompletes() throws Exception {
    List<Receipt> answers = new CopyOnWriteArrayList<>();
    List<Disposable> subscriptions = new ArrayList<>();
    subscriptions.add(orders.gatedWaiting("k").subscribe(answers::add));
    awaitRuns("k", 1);
    for (int i = 0; i < 20; i++) {
      subscriptions.add(orders.gatedWaiting("k").subscribe(answers::add));
    }
    Thread.sleep(100);
    assertThat(answers).isEmpty();
    orders.gate.tryEmitValue(new Receipt("k", 7, Instant.EPOCH));
    long deadline = System.nanoTime() + LONG.toNanos();
    while (answers.size() < 21 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(answers).hasSize(21).containsOnly(new Receipt("k", 7, Instant.EPOCH));
    assertThat(orders.runs("k")).isEqualTo(1);
    subscriptions.forEach(Disposable::dispose);
  }

  @Test
  void theSubscribersContext_reachesTheMethodsMono() {
    assertThat(orders.whoAsks("k").contextWrite(Context.of("user", "alice")).block(LONG)).isEqualTo("alice");
    assertThat(orders.whoAsks("k").contextWrite(Context.of("user", "bob")).block(LONG))
        .as("a replay: the first call's value").isEqualTo("alice");
  }

  @Test
  void anEmptyMono_isRecordedAsNull_andReplayedEmpty() {
    assertThat(orders.nothing("k").blockOptional(LONG)).isEmpty();
    assertThat(orders.nothing("k").blockOptional(LONG)).isEmpty();
    assertThat(orders.runs("k")).isEqualTo(1);
  }

  @Test
  void aMissingKey_isTheMonosError() {
    assertThatThrownBy(() -> orders.charge(null, 1).block(LONG)).isInstanceOf(IdempotencyKeyException.class);
    assertThat(orders.runs("null")).isZero();
  }

  @Test
  void aFlux_isRefusedWhenPlanned_sayingHowToCollectIt() {
    assertThatThrownBy(() -> orders.stream("k")).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("Flux").hasMessageContaining("collectList()");
    assertThat(orders.runs("k")).isZero();
  }

  @Test
  void anObserver_seesEachMonoCallEnd_withItsOutcome() throws Exception {
    List<String> ended = new CopyOnWriteArrayList<>();
    List<String> detached = new CopyOnWriteArrayList<>();
    fixture = Fixture.realTime(b -> b.observer((name, store) -> new IdempotencyObserver.ObservedCall() {
      @Override
      public void end(IdempotencyObserver.Outcome outcome, Throwable error) {
        ended.add(outcome + (error == null ? "" : " " + error.getClass().getSimpleName()));
      }

      @Override
      public void detached() {
        detached.add(name);
      }
    }));
    orders.charge("k", 5).block(LONG);
    orders.charge("k", 5).block(LONG);
    assertThatThrownBy(() -> orders.failsFirst("f").block(LONG)).hasMessageContaining("gateway timeout");
    assertThatThrownBy(() -> orders.declined("d").block(LONG)).isInstanceOf(Declined.class);
    assertThatThrownBy(() -> orders.declined("d").block(LONG)).isInstanceOf(Declined.class);
    Disposable running = orders.gated("g").subscribe();
    awaitRuns("g", 1);
    assertThatThrownBy(() -> orders.gated("g").block(LONG)).isInstanceOf(IdempotencyInProgressException.class);
    running.dispose();
    long deadline = System.nanoTime() + LONG.toNanos();
    while (ended.size() < 7 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(ended).containsExactlyInAnyOrder("EXECUTED", "REPLAYED", "FAILED IllegalStateException", "FAILED Declined",
        "REPLAYED Declined", "IN_PROGRESS IdempotencyInProgressException", "FAILED CancellationException");
    assertThat(detached).hasSize(7);
  }

  private void awaitRuns(String key, int n) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (orders.runs(key) < n && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(orders.runs(key)).isEqualTo(n);
  }

  /** Retries {@code call} while the release of a cancelled claim is still on its way to the store. */
  private static <T> T await(java.util.function.Supplier<T> call) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (true) {
      try {
        return call.get();
      } catch (IdempotencyInProgressException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }
}
