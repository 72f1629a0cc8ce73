package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One test (or more) per row of the outcome table in docs/DESIGN.md, Outcomes, through a woven annotated
 * class.
 */
class StateMachineTest {

  private final PaymentService service = new PaymentService();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() {
    service.proceed.countDown();
    pool.shutdownNow();
    Idempotency.uninstall();
  }

  /** {@code method} with its parameter types, as the default name has them: {@code charge(String, long)}. */
  private static String storedKey(String method, String key) {
    return StoredKeys.compose(PaymentService.class.getName() + "." + method, null, key, StoreKeyRules.any());
  }

  // row: no live record -> claim atomically, run, store COMPLETED + result, return it
  @Test
  void call_noLiveRecord_runsAndRecordsCompleted() {
    Fixture f = Fixture.fakeTime();
    Receipt r = service.charge("o-1", 100);
    assertThat(r.amount()).isEqualTo(100);
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(f.store.find(storedKey("charge(String, long)", "o-1")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    assertThat(f.eventTypes()).containsExactly(Type.EXECUTED);
  }

  // row: COMPLETED, same fingerprint -> do not run; return the stored result as the declared type
  @Test
  void call_completedSameArguments_replaysWithoutRunning() {
    Fixture f = Fixture.fakeTime();
    Receipt first = service.charge("o-1", 100);
    Receipt again = service.charge("o-1", 100);
    assertThat(again).isEqualTo(first).isNotSameAs(first);
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(f.eventTypes()).containsExactly(Type.EXECUTED, Type.REPLAYED);
  }

  // row: method throws (default) -> release the claim, rethrow the original exception unchanged
  @Test
  void call_methodThrows_releasesAndRethrowsTheSameException() {
    Fixture f = Fixture.fakeTime();
    IllegalStateException boom = new IllegalStateException("gateway down");
    service.nextFailure = boom;
    assertThatThrownBy(() -> service.charge("o-1", 100)).isSameAs(boom);
    assertThat(f.store.find(storedKey("charge(String, long)", "o-1"))).isEmpty();
    Receipt retry = service.charge("o-1", 100);
    assertThat(retry.orderId()).isEqualTo("o-1");
    assertThat(service.runs("o-1")).isEqualTo(2);
    assertThat(f.eventTypes()).containsExactly(Type.RELEASED_ON_FAILURE, Type.EXECUTED);
  }

  @Test
  void call_methodThrowsCheckedException_releasesAndRethrowsItUnchanged() {
    Fixture.fakeTime();
    assertThatThrownBy(() -> service.checked("o-1")).isInstanceOf(IOException.class).hasMessage("gateway timeout");
    assertThatThrownBy(() -> service.checked("o-1")).isInstanceOf(IOException.class);
    assertThat(service.runs("o-1")).isEqualTo(2);
  }

  // row: method throws an exception declared final -> stored; later calls rethrow an equivalent one
  @Test
  void call_finalException_isRecordedAndReplayedWithoutRunning() {
    Fixture f = Fixture.fakeTime();
    assertThatThrownBy(() -> service.chargeCard("o-9", 5000)).isInstanceOf(Declined.class).hasMessage("limit exceeded");
    assertThatThrownBy(() -> service.chargeCard("o-9", 5000)).isInstanceOf(Declined.class).hasMessage("limit exceeded");
    assertThat(service.runs("o-9")).isEqualTo(1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(f.eventTypes()).containsExactly(Type.FAILURE_STORED, Type.REPLAYED);
  }

  // row: any live record, different fingerprint -> do not run; IdempotencyKeyReusedException
  @Test
  void call_completedKeyWithDifferentArguments_isRejected() {
    Fixture f = Fixture.fakeTime();
    service.charge("o-1", 100);
    assertThatThrownBy(() -> service.charge("o-1", 999))
        .isInstanceOf(IdempotencyKeyReusedException.class)
        .hasMessageContaining("PaymentService.charge")
        .hasMessageNotContaining("o-1")
        .hasMessageNotContaining("999");
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(f.eventTypes()).contains(Type.KEY_REUSED);
  }

  @Test
  void call_inProgressKeyWithDifferentArguments_isRejected() throws Exception {
    Fixture.realTime(b -> {});
    service.proceed = new CountDownLatch(1);
    Future<Receipt> first = pool.submit(() -> service.charge("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> service.charge("o-1", 999)).isInstanceOf(IdempotencyKeyReusedException.class);
    service.proceed.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).amount()).isEqualTo(100);
    assertThat(service.runs("o-1")).isEqualTo(1);
  }

  // row: IN_PROGRESS, lease alive -> per onInProgress, never a second execution
  @Test
  void call_inProgressWithThrowPolicy_throwsInProgress() throws Exception {
    Fixture f = Fixture.realTime(b -> {});
    service.proceed = new CountDownLatch(1);
    Future<Receipt> first = pool.submit(() -> service.charge("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> service.charge("o-1", 100)).isInstanceOf(IdempotencyInProgressException.class);
    service.proceed.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(f.eventTypes()).contains(Type.IN_PROGRESS);
  }

  @Test
  void call_inProgressWithWaitPolicy_waitsAndReplaysTheFirstResult() throws Exception {
    Fixture f = Fixture.fakeTime();
    service.proceed = new CountDownLatch(1);
    Future<Receipt> first = pool.submit(() -> service.chargeAndWait("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    Fixture.Running<Receipt> second = Fixture.start(() -> service.chargeAndWait("o-1", 100));
    assertThat(f.ticker.awaitParked(second.thread())).as("the duplicate waits").isTrue();
    assertThat(second.result()).isNotDone();
    service.proceed.countDown();
    Receipt firstResult = first.get(10, TimeUnit.SECONDS);
    f.ticker.advance(Duration.ofMillis(200)); // the longest pause between two looks at a store that gives no signal
    assertThat(second.result().get(10, TimeUnit.SECONDS)).isEqualTo(firstResult);
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(f.eventTypes()).contains(Type.WAITED, Type.REPLAYED);
  }

  @Test
  void call_inProgressWithWaitPolicy_runsItselfWhenTheFirstFails() throws Exception {
    Fixture f = Fixture.fakeTime();
    service.proceed = new CountDownLatch(1);
    service.nextFailure = new IllegalStateException("first attempt fails");
    Future<Receipt> first = pool.submit(() -> service.chargeAndWait("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    Fixture.Running<Receipt> second = Fixture.start(() -> service.chargeAndWait("o-1", 100));
    assertThat(f.ticker.awaitParked(second.thread())).as("the duplicate waits").isTrue();
    service.proceed.countDown();
    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
    f.ticker.advance(Duration.ofMillis(200));
    assertThat(second.result().get(10, TimeUnit.SECONDS).amount()).isEqualTo(100);
    assertThat(service.runs("o-1")).isEqualTo(2);
  }

  @Test
  void call_inProgressWithWaitPolicy_throwsAfterTheTimeout() throws Exception {
    Fixture f = Fixture.fakeTime();
    service.proceed = new CountDownLatch(1);
    Future<Receipt> first = pool.submit(() -> service.chargeWaitBriefly("o-1"));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    Fixture.Running<Receipt> second = Fixture.start(() -> service.chargeWaitBriefly("o-1"));
    assertThat(f.ticker.awaitParked(second.thread())).as("the duplicate waits").isTrue();
    f.ticker.advance(Duration.ofMillis(299)); // its wait timeout is 0.3 s
    assertThat(f.ticker.awaitParked(second.thread())).as("still waiting 1 ms before its timeout").isTrue();
    assertThat(second.result()).isNotDone();
    f.ticker.advance(Duration.ofMillis(1));
    assertThatThrownBy(() -> second.result().get(10, TimeUnit.SECONDS))
        .cause().isInstanceOf(IdempotencyInProgressException.class).hasMessageContaining("still in progress");
    service.proceed.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertThat(service.runs("o-1")).isEqualTo(1);
  }

  @Test
  void call_inProgressWithSkipPolicy_returnsWithoutRunning() throws Exception {
    Fixture f = Fixture.realTime(b -> {});
    service.proceed = new CountDownLatch(1);
    Future<?> first = pool.submit(() -> service.settle("2026-12-01"));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    service.settle("2026-12-01");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.SKIPPED);
    service.proceed.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertThat(service.runs("2026-12-01")).isEqualTo(1);
    assertThat(f.eventTypes()).contains(Type.SKIPPED);
  }

  @Test
  void call_inProgressWithSkipPolicyAndOptionalResult_returnsEmpty() throws Exception {
    Fixture.realTime(b -> {});
    service.proceed = new CountDownLatch(1);
    Future<?> first = pool.submit(() -> service.report("d1"));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(service.report("d1")).isEmpty();
    service.proceed.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(java.util.Optional.of("report d1"));
  }

  // row: IN_PROGRESS, lease expired (owner died) -> take over with a new owner token and run
  @Test
  void call_inProgressWithExpiredLease_takesOverAndRuns() {
    Fixture f = Fixture.fakeTime();
    String k = storedKey("charge(String, long)", "o-1");
    String fp = io.idempotent.internal.Fingerprints.of(new Object[] {"o-1", 100L});
    assertThat(f.store.claim(k, fp, "dead-owner", Duration.ofSeconds(30)).claimed()).isTrue();
    assertThatThrownBy(() -> service.charge("o-1", 100)).isInstanceOf(IdempotencyInProgressException.class);
    f.ticker.advance(Duration.ofSeconds(31));
    assertThat(service.charge("o-1", 100).orderId()).isEqualTo("o-1");
    assertThat(service.runs("o-1")).isEqualTo(1);
    assertThat(f.eventTypes()).containsSubsequence(Type.IN_PROGRESS, Type.LEASE_TAKEN_OVER, Type.EXECUTED);
    assertThat(f.store.complete(k, "dead-owner", io.idempotent.spi.StoredOutcome.nullValue(), Duration.ofHours(1)))
        .as("the dead owner is fenced").isFalse();
  }

  // row: record past its TTL -> treated as absent (also before it is purged)
  @Test
  void call_completedPastItsTtl_runsAgain() {
    Fixture f = Fixture.fakeTime();
    service.charge("o-1", 100);
    f.ticker.advance(Duration.ofMinutes(59));
    service.charge("o-1", 100);
    assertThat(service.runs("o-1")).isEqualTo(1);
    f.ticker.advance(Duration.ofMinutes(2));
    service.charge("o-1", 777); // past the TTL even a different payload is a fresh call
    assertThat(service.runs("o-1")).isEqualTo(2);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
  }

  // row: key expression yields null or blank -> do not run; IdempotencyKeyException
  @Test
  void call_nullOrBlankKey_isRejectedWithoutRunning() {
    Fixture f = Fixture.fakeTime();
    assertThatThrownBy(() -> service.charge(null, 100)).isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("PaymentService.charge").hasMessageContaining("null");
    assertThatThrownBy(() -> service.charge("  ", 100)).isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("blank");
    assertThat(service.runs).isEmpty();
    assertThat(f.store.claims()).isZero();
    assertThat(f.eventTypes()).containsExactly(Type.KEY_MISSING, Type.KEY_MISSING);
  }

  @Test
  void call_nullKeyWithRunUnprotectedPolicy_runsWithoutProtection() {
    Fixture f = Fixture.fakeTime(b -> b.missingKeyPolicy(MissingKeyPolicy.RUN_UNPROTECTED));
    service.charge(" ", 100);
    service.charge(" ", 100);
    assertThat(service.runs(" ")).isEqualTo(2);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.UNPROTECTED);
    assertThat(f.store.claims()).isZero();
  }

  @Test
  void call_nullScope_isRejected() {
    Fixture.fakeTime();
    assertThatThrownBy(() -> service.refund(null, new Receipt("o-1", 1, null)))
        .isInstanceOf(IdempotencyKeyException.class).hasMessageContaining("scope");
  }

  // row: store unreachable or failing -> do not run; IdempotencyStoreException (fail closed)
  @Test
  void call_storeFailing_failsClosedWithoutRunning() {
    Fixture f = Fixture.fakeTime();
    f.store.failing(true);
    assertThatThrownBy(() -> service.charge("o-1", 100)).isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("did not run").hasRootCauseMessage("store unreachable (simulated)");
    assertThat(service.runs("o-1")).isZero();
    assertThat(f.eventTypes()).containsExactly(Type.STORE_ERROR);
  }

  // row: owner completes after losing its lease -> fencing; the loss is reported
  @Test
  void call_ownerCompletesAfterLosingItsLease_doesNotOverwriteTheNewOwner() throws Exception {
    Fixture f = Fixture.fakeTime(b -> b.leaseRenewal(false));
    service.proceed = new CountDownLatch(1);
    Future<Receipt> stale = pool.submit(() -> service.charge("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    f.ticker.advance(Duration.ofSeconds(31)); // the default lease is 30 s
    String k = storedKey("charge(String, long)", "o-1");
    String fp = io.idempotent.internal.Fingerprints.of(new Object[] {"o-1", 100L});
    assertThat(f.store.claim(k, fp, "new-owner", Duration.ofMinutes(5)).status())
        .isEqualTo(ClaimResult.Status.TAKEN_OVER);
    service.proceed.countDown();
    assertThat(stale.get(10, TimeUnit.SECONDS).orderId()).isEqualTo("o-1");
    var record = f.store.find(k).orElseThrow();
    assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(record.owner()).isEqualTo("new-owner");
    assertThat(f.eventTypes()).contains(Type.LEASE_LOST).doesNotContain(Type.EXECUTED);
  }

  @Test
  void call_ownerFailsAfterLosingItsLease_doesNotReleaseTheNewOwner() throws Exception {
    Fixture f = Fixture.fakeTime(b -> b.leaseRenewal(false));
    service.proceed = new CountDownLatch(1);
    service.nextFailure = new IllegalStateException("late failure");
    Future<Receipt> stale = pool.submit(() -> service.charge("o-1", 100));
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    f.ticker.advance(Duration.ofSeconds(31));
    String k = storedKey("charge(String, long)", "o-1");
    f.store.claim(k, "fp", "new-owner", Duration.ofMinutes(5));
    service.proceed.countDown();
    assertThatThrownBy(() -> stale.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(f.store.find(k).orElseThrow().owner()).isEqualTo("new-owner");
    assertThat(f.eventTypes()).contains(Type.LEASE_LOST).doesNotContain(Type.RELEASED_ON_FAILURE);
  }

  @Test
  void call_longRunningMethod_keepsItsLeaseByRenewal() throws Exception {
    Fixture f = Fixture.fakeTime();
    service.proceed = new CountDownLatch(1);
    Future<String> first = pool.submit(() -> service.slow("s-1")); // lease is 3 s, renewed every second
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 1; i <= 15; i++) { // five leases
      f.ticker.advance(Duration.ofSeconds(1));
      f.store.awaitRenewals(i);
      assertThatThrownBy(() -> service.slow("s-1")).isInstanceOf(IdempotencyInProgressException.class);
    }
    service.proceed.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("done s-1");
    assertThat(service.runs("s-1")).isEqualTo(1);
    assertThat(f.eventTypes()).doesNotContain(Type.LEASE_TAKEN_OVER, Type.LEASE_LOST);
  }

  @Test
  void call_concurrentDuplicates_runOnceAcrossThreads() throws Exception {
    Fixture.realTime(b -> {});
    int threads = 16;
    CountDownLatch go = new CountDownLatch(1);
    java.util.List<Future<Receipt>> results = new java.util.ArrayList<>();
    for (int i = 0; i < threads; i++) {
      results.add(pool.submit(() -> {
        go.await();
        return service.chargeAndWait("burst", 10);
      }));
    }
    go.countDown();
    for (Future<Receipt> r : results) {
      assertThat(r.get(30, TimeUnit.SECONDS).orderId()).isEqualTo("burst");
    }
    assertThat(service.runs("burst")).isEqualTo(1);
  }
}
