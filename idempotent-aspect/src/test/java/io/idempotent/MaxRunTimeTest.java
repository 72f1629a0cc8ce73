package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentCall;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A running call holds its key for at most its maximum run time (plus one lease), even if it never ends.
 * The store and the engine share a ticker: time passes only when a test advances it, a second at a time,
 * each step a renewal of the 3 s lease.
 */
class MaxRunTimeTest {

  private static final Duration STEP = Duration.ofSeconds(1);

  private final ManualTimeSource time = new ManualTimeSource();
  private final InMemoryTestStore store = new InMemoryTestStore(time, true);
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final CountDownLatch runTimeExceeded = new CountDownLatch(1);
  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
      .store(store).time(time).listener(e -> {
        events.add(e.type());
        if (e.type() == IdempotencyEvent.Type.RUN_TIME_EXCEEDED) {
          runTimeExceeded.countDown();
        }
      }).build());
  private final AtomicInteger runs = new AtomicInteger();

  @SuppressWarnings("unchecked")
  private IdempotentCall<CompletionStage<String>> call(Duration maxRunTime) {
    IdempotentCall<CompletionStage<String>> c = (IdempotentCall<CompletionStage<String>>) (IdempotentCall<?>)
        idempotency.call("exports.start", CompletionStage.class).key("e-1").lease(Duration.ofSeconds(3));
    return maxRunTime == null ? c : c.maxRunTime(maxRunTime);
  }

  private CompletionStage<String> neverCompletes() {
    runs.incrementAndGet();
    return new CompletableFuture<>();
  }

  @Test
  void stageThatNeverCompletes_pastItsMaxRunTime_isTakenOver() throws Exception {
    call(Duration.ofSeconds(6)).run(this::neverCompletes);
    for (int i = 1; i <= 5; i++) {
      time.advance(STEP);
      store.awaitRenewals(i);
    }
    assertThatThrownBy(() -> call(Duration.ofSeconds(6)).run(this::neverCompletes))
        .as("refused at 5 s, within its run time, by renewal").isInstanceOf(IdempotencyInProgressException.class);

    time.advance(STEP); // 6 s: its run time is over, the lease renewed at 5 s runs until 8 s
    assertThat(runTimeExceeded.await(10, TimeUnit.SECONDS)).isTrue();
    time.advance(STEP.multipliedBy(2).minusNanos(1));
    assertThatThrownBy(() -> call(Duration.ofSeconds(6)).run(this::neverCompletes))
        .as("refused until its last lease ends").isInstanceOf(IdempotencyInProgressException.class);
    assertThat(store.renewals()).as("no renewal past its run time").isEqualTo(5);

    time.advance(Duration.ofNanos(1));
    call(Duration.ofSeconds(6)).run(this::neverCompletes);
    assertThat(runs).as("a duplicate ran once the first call's run time and lease were over").hasValue(2);
    assertThat(events).containsSubsequence(
        IdempotencyEvent.Type.RUN_TIME_EXCEEDED, IdempotencyEvent.Type.LEASE_TAKEN_OVER);
  }

  @Test
  void stageThatNeverCompletes_withinItsMaxRunTime_keepsItsKeyByRenewal() throws Exception {
    call(null).run(this::neverCompletes); // the maximum run time is the TTL, 24 hours
    for (int i = 1; i <= 15; i++) { // five leases
      time.advance(STEP);
      store.awaitRenewals(i);
    }
    assertThatThrownBy(() -> call(null).run(this::neverCompletes)).isInstanceOf(IdempotencyInProgressException.class);
    assertThat(runs).hasValue(1);
    assertThat(events).doesNotContain(IdempotencyEvent.Type.RUN_TIME_EXCEEDED);
  }

  @Test
  void maxRunTime_notPositive_isRefusedBeforeTheBodyRuns() {
    assertThatThrownBy(() -> call(Duration.ZERO).run(this::neverCompletes))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("maxRunTime of exports.start");
    assertThat(runs).hasValue(0);
  }
}
