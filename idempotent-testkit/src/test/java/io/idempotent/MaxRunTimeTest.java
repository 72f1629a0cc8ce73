package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A running call holds its key for at most its maximum run time (plus one lease), even if it never ends. */
class MaxRunTimeTest {

  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
      .store(new InMemoryTestStore(System::nanoTime, true)).listener(e -> events.add(e.type())).build());
  private final AtomicInteger runs = new AtomicInteger();

  @SuppressWarnings("unchecked")
  private IdempotentCall<CompletionStage<String>> call(Duration maxRunTime) {
    IdempotentCall<CompletionStage<String>> c = (IdempotentCall<CompletionStage<String>>) (IdempotentCall<?>)
        idempotency.call("exports.start", CompletionStage.class).key("e-1").lease(Duration.ofMillis(300));
    return maxRunTime == null ? c : c.maxRunTime(maxRunTime);
  }

  private CompletionStage<String> neverCompletes() {
    runs.incrementAndGet();
    return new CompletableFuture<>();
  }

  @Test
  void stageThatNeverCompletes_pastItsMaxRunTime_isTakenOver() throws Exception {
    call(Duration.ofMillis(600)).run(this::neverCompletes);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    int refused = 0;
    while (runs.get() < 2 && System.nanoTime() < deadline) {
      try {
        call(Duration.ofMillis(600)).run(this::neverCompletes);
      } catch (IdempotencyInProgressException e) {
        refused++;
        Thread.sleep(50);
      }
    }
    assertThat(refused).as("refused while the first call was within its run time").isPositive();
    assertThat(runs).as("a duplicate ran once the first call's run time and lease were over").hasValue(2);
    assertThat(events).contains(IdempotencyEvent.Type.RUN_TIME_EXCEEDED, IdempotencyEvent.Type.LEASE_TAKEN_OVER);
  }

  @Test
  void stageThatNeverCompletes_withinItsMaxRunTime_keepsItsKeyByRenewal() throws Exception {
    call(null).run(this::neverCompletes); // the maximum run time is the TTL, 24 hours
    Thread.sleep(1_500); // five leases
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
