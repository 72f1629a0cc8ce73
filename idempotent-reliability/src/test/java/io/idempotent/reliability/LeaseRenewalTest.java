package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.jdbi.TransactionMode;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A method that runs for many times its lease keeps its claim: the engine renews the lease while it
 * runs, so another instance polling the key all along is refused every time and never executes.
 */
class LeaseRenewalTest {

  private static final String NAME = "renewal.settlement";
  private static final Duration LEASE = Duration.ofMillis(1500);
  private static final int LEASES = 6;

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#servers")
  void methodRunningManyTimesItsLease_isNeverTakenOver(Database db) throws Exception {
    db.requireReachable();
    RenewalBlockingStore[] counting = new RenewalBlockingStore[1];
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (AppInstance owner = AppInstance.on(db.newPool(4, "owner"), TransactionMode.INDEPENDENT, LEASE, true,
             s -> counting[0] = new RenewalBlockingStore(s));
         AppInstance other = AppInstance.on(db, "other", TransactionMode.INDEPENDENT, LEASE, true)) {
      String key = Calls.newRun();
      CountDownLatch started = new CountDownLatch(1);
      Duration runFor = LEASE.multipliedBy(LEASES);
      Future<String> longJob = executor.submit(() -> owner.idempotency.call(NAME, String.class).key(key).run(() -> {
        started.countDown();
        Thread.sleep(runFor.toMillis());
        return "settled";
      }));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      AtomicInteger otherRuns = new AtomicInteger();
      int refusals = 0;
      while (!longJob.isDone()) {
        try {
          other.idempotency.call(NAME, String.class).key(key).run(() -> "other-" + otherRuns.incrementAndGet());
        } catch (IdempotencyInProgressException e) {
          refusals++;
        }
        Thread.sleep(100);
      }
      assertThat(longJob.get()).isEqualTo("settled");
      assertThat(otherRuns).as("the other instance never ran while the method ran").hasValue(0);
      assertThat(refusals).isPositive();
      assertThat(other.events.count(Type.LEASE_TAKEN_OVER)).isZero();
      assertThat(owner.events.count(Type.LEASE_LOST)).isZero();
      assertThat(owner.events.count(Type.EXECUTED)).isEqualTo(1);
      assertThat(counting[0].renewals).as("the lease was renewed while the method ran")
          .hasValueGreaterThanOrEqualTo(LEASES);
      CallResult<String> after = other.idempotency.call(NAME, String.class).key(key).execute(() -> "late");
      int lost = after.replayed() && after.value().equals("settled") ? 0 : 1;

      Figures.of("LeaseRenewalTest[" + db + "]")
          .set("threads", 2).set("keys", 1).set("duplicatesSent", refusals + 1L)
          .set("executions", 1 + otherRuns.get()).set("leaseMillis", LEASE.toMillis())
          .set("methodMillis", runFor.toMillis()).set("renewals", counting[0].renewals.get())
          .set("lost", lost).set("duplicated", otherRuns.get())
          .report();
      assertThat(after.replayed()).as("the other instance replays the settled result").isTrue();
      assertThat(after.value()).isEqualTo("settled");
      assertThat(lost).as("lost").isZero();
    } finally {
      executor.shutdownNow();
    }
  }
}
