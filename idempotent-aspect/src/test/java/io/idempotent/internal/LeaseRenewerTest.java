package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.ManualTimeSource;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.OnInProgress;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The renewer on a ticker the tests move: every renewal falls due only when a test advances the time. */
class LeaseRenewerTest {

  private static final Duration LEASE = Duration.ofMillis(300);
  /** A third of the lease: when a renewal falls due. */
  private static final Duration INTERVAL = LEASE.dividedBy(3);

  private final ManualTimeSource time = new ManualTimeSource();
  private final InMemoryTestStore store = new InMemoryTestStore(time, false);
  private final IdempotencyEngine engine =
      new IdempotencyEngine(new EngineSettings(name -> store, "default", Duration.ofDays(1), LEASE,
          Duration.ofSeconds(30), time, null, null, JacksonResultCodec.shared(), true, MissingKeyPolicy.REJECT,
          true));
  private final CallPlan plan = new CallPlan("n", "n", "", null, null, null, OnInProgress.THROW,
      new Class[0], false, false, String.class, null, null, io.idempotent.Effects.UNDECLARED);

  private LeaseRenewer renewer(long idleExitNanos) {
    return new LeaseRenewer(engine.renewalListener(), time, idleExitNanos);
  }

  /** Lets {@code timekeeper} find itself idle and end: each time it parks, a second passes. */
  private void advanceUntilEnded(Thread timekeeper) throws InterruptedException {
    for (int i = 0; i < 10 && time.awaitParked(timekeeper); i++) {
      time.advance(Duration.ofSeconds(1));
    }
    timekeeper.join(10_000);
  }

  @Test
  void thread_endsWhenIdle_andARegistrationStartsAnotherThatRenews() throws Exception {
    LeaseRenewer renewer = renewer(Duration.ofMillis(50).toNanos());
    store.claim("k1", "", "o1", LEASE);
    renewer.register(plan, store, "k1", CallClaims.of(store, "k1", "o1", ClaimResult.acquired()), LEASE, Duration.ofHours(1)).cancel();
    Thread first = renewer.thread();
    assertThat(first).isNotNull();
    advanceUntilEnded(first);
    assertThat(first.isAlive()).isFalse();
    assertThat(renewer.thread()).isNull();

    store.claim("k2", "", "o2", LEASE);
    LeaseRenewer.Renewal r = renewer.register(plan, store, "k2", CallClaims.of(store, "k2", "o2", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    Thread second = renewer.thread();
    assertThat(second).isNotNull().isNotSameAs(first);
    for (int i = 1; i <= 9; i++) { // three leases: only renewal keeps the claim
      time.advance(INTERVAL);
      store.awaitRenewals(i);
    }
    assertThat(store.claim("k2", "", "intruder", LEASE).claimed()).as("k2's claim was kept").isFalse();
    assertThat(store.find("k2").orElseThrow().owner()).isEqualTo("o2");
    r.cancel();
  }

  @Test
  void lanes_ofStoresNoLongerRenewed_areDroppedWhenTheThreadGoesIdle() throws Exception {
    LeaseRenewer renewer = renewer(Duration.ofMillis(50).toNanos());
    List<InMemoryTestStore> stores = List.of(
        new InMemoryTestStore(time, false), new InMemoryTestStore(time, false), new InMemoryTestStore(time, false));
    List<LeaseRenewer.Renewal> renewals = new ArrayList<>();
    for (InMemoryTestStore s : stores) {
      s.claim("k", "", "o", LEASE);
      renewals.add(renewer.register(plan, s, "k", CallClaims.of(s, "k", "o", ClaimResult.acquired()), LEASE, Duration.ofHours(1)));
    }
    time.advance(INTERVAL); // the first renewal of each: every store has a lane
    for (InMemoryTestStore s : stores) {
      s.awaitRenewals(1);
    }
    assertThat(renewer.laneCount()).isEqualTo(stores.size());
    renewals.forEach(LeaseRenewer.Renewal::cancel);
    Thread timekeeper = renewer.thread();
    advanceUntilEnded(timekeeper);
    assertThat(timekeeper.isAlive()).isFalse();
    assertThat(renewer.laneCount()).as("lanes kept after every renewal ended").isZero();
  }

  @Test
  void claimTakenOverBeforeItsRenewal_isReportedAsLost_andNoLongerRenewed() throws Exception {
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    LeaseRenewer renewer = new LeaseRenewer(new LeaseRenewer.Listener() {
      @Override
      public void renewalFailed(CallPlan p, String key, RuntimeException error) {
        reports.add("failed " + key);
      }

      @Override
      public void leaseLost(CallPlan p, io.idempotent.spi.IdempotencyStore s, String key, String action) {
        reports.add("lost " + key);
      }

      @Override
      public void runTimeExceeded(CallPlan p, String key, Duration maxRunTime) {
        reports.add("too long " + key);
      }

      @Override
      public void recordedLate(CallPlan p, String key, LeaseRenewer.LateRecording recording) {
        reports.add("recorded " + key);
      }

      @Override
      public void recordingAbandoned(CallPlan p, String key, Duration maxRunTime) {
        reports.add("abandoned " + key);
      }
    }, time);
    store.claim("k", "", "first", LEASE);
    LeaseRenewer.Renewal r = renewer.register(plan, store, "k", CallClaims.of(store, "k", "first", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    store.release("k", "first");
    store.claim("k", "", "second", Duration.ofMinutes(1)); // another caller holds the key now
    time.advance(INTERVAL);
    assertThat(reports.poll(10, TimeUnit.SECONDS)).isEqualTo("lost k");
    assertThat(store.find("k").orElseThrow().owner()).isEqualTo("second");
    r.cancel();
  }

  @Test
  void lateRecording_isTriedAtPausesDoublingToHalfASecond_andRenewsTheLeaseWhenDue_untilItLands() throws Exception {
    LeaseRenewer renewer = renewer(Duration.ofSeconds(5).toNanos());
    Duration lease = Duration.ofSeconds(3); // renewed each second
    store.claim("k", "", "o", lease);
    LeaseRenewer.Renewal running = renewer.register(plan, store, "k", CallClaims.of(store, "k", "o", ClaimResult.acquired()), lease, Duration.ofHours(1));
    running.cancel(); // the call returned; its completion failed
    BlockingQueue<Long> attempts = new LinkedBlockingQueue<>();
    boolean[] storeBack = {false};
    long start = time.nanoTime();
    renewer.recordLater(plan, store, "k", CallClaims.of(store, "k", "o", ClaimResult.acquired()), lease, Duration.ofHours(1), running, new LeaseRenewer.LateRecording() {
      @Override
      public boolean attempt() {
        attempts.add(Duration.ofNanos(time.nanoTime() - start).toMillis());
        if (!storeBack[0]) {
          throw new IllegalStateException("store unreachable");
        }
        return store.complete("k", "o", io.idempotent.spi.StoredOutcome.nullValue(), Duration.ofHours(1));
      }

      @Override
      public boolean failure() {
        return false;
      }
    });
    List<Long> seen = new ArrayList<>();
    long renewalsBefore = store.renewals();
    // pauses of 50, 100, 200, 400 ms, then 500 ms at most, and never past a renewal's due time (each second)
    List<Long> expected = List.of(50L, 150L, 350L, 750L, 1000L, 1500L, 2000L, 2500L);
    for (long at = 10; at <= 2500; at += 10) {
      time.advance(Duration.ofMillis(10));
      // an attempt that falls due now is waited for (the time stays until the next advance); one that
      // does not would show up at the next poll
      Long a = attempts.poll(expected.contains(at) ? 10_000 : 1, TimeUnit.MILLISECONDS);
      if (a != null) {
        seen.add(a);
      }
    }
    assertThat(seen).isEqualTo(expected);
    assertThat(store.renewals() - renewalsBefore).as("renewed at 1 s and 2 s while it fails").isEqualTo(2);
    assertThat(store.find("k").orElseThrow().state()).isEqualTo(io.idempotent.spi.RecordState.IN_PROGRESS);

    storeBack[0] = true;
    for (int i = 0; i < 100 && store.find("k").orElseThrow().state() != io.idempotent.spi.RecordState.COMPLETED; i++) {
      time.advance(Duration.ofMillis(100));
      Thread.sleep(5);
    }
    assertThat(store.find("k").orElseThrow().state()).isEqualTo(io.idempotent.spi.RecordState.COMPLETED);
  }

  /** A store whose renewals hang, as when the application has exhausted its connection pool. */
  private static final class StuckRenewals extends InMemoryTestStore {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch unblock = new CountDownLatch(1);
    final BlockingQueue<String> renewed = new LinkedBlockingQueue<>();

    StuckRenewals(ManualTimeSource time) {
      super(time, false);
    }

    @Override
    public boolean renew(String key, String owner, Duration lease) {
      entered.countDown();
      try {
        unblock.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      renewed.add(key);
      return super.renew(key, owner, lease);
    }
  }

  @Test
  void renewalCancelledWhileItWaitsInItsStoresLane_neverReachesTheStore() throws Exception {
    StuckRenewals stuck = new StuckRenewals(time);
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener(), time);
    stuck.claim("a", "", "oa", LEASE);
    stuck.claim("c", "", "oc", LEASE);
    stuck.claim("d", "", "od", LEASE);
    LeaseRenewer.Renewal ra = renewer.register(plan, stuck, "a", CallClaims.of(stuck, "a", "oa", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    time.advance(INTERVAL);
    assertThat(stuck.entered.await(10, TimeUnit.SECONDS)).isTrue();
    LeaseRenewer.Renewal rc = renewer.register(plan, stuck, "c", CallClaims.of(stuck, "c", "oc", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    time.advance(INTERVAL);
    // once the timekeeper parks again, c has fallen due and waits in the lane behind a's hanging renewal
    assertThat(time.awaitParked(renewer.thread())).isTrue();
    LeaseRenewer.Renewal rd = renewer.register(plan, stuck, "d", CallClaims.of(stuck, "d", "od", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    rc.cancel(); // its call ended: in JOINED mode its row may now be locked by the caller's completion
    stuck.unblock.countDown();
    time.advance(INTERVAL); // d falls due; the lane runs it after c's turn
    List<String> seen = new ArrayList<>();
    while (!seen.contains("d")) {
      String key = stuck.renewed.poll(10, TimeUnit.SECONDS);
      assertThat(key).as("d renewed").isNotNull();
      seen.add(key);
    }
    ra.cancel();
    rd.cancel();
    assertThat(seen).contains("a").doesNotContain("c");
  }

  @Test
  void storeWhoseRenewalsHang_doesNotStopAnotherStoresRenewals() throws Exception {
    StuckRenewals stuck = new StuckRenewals(time);
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener(), time);
    stuck.claim("a", "", "oa", LEASE);
    LeaseRenewer.Renewal ra = renewer.register(plan, stuck, "a", CallClaims.of(stuck, "a", "oa", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    store.claim("b", "", "ob", LEASE);
    LeaseRenewer.Renewal rb = renewer.register(plan, store, "b", CallClaims.of(store, "b", "ob", ClaimResult.acquired()), LEASE, Duration.ofHours(1));
    try {
      time.advance(INTERVAL);
      assertThat(stuck.entered.await(10, TimeUnit.SECONDS)).as("store a's renewal started and hangs").isTrue();
      store.awaitRenewals(1);
      for (int i = 2; i <= 10; i++) { // more than three leases: only renewals keep store b's claim
        time.advance(INTERVAL);
        store.awaitRenewals(i);
      }
      assertThat(store.claim("b", "", "intruder", LEASE).claimed()).as("b's claim was kept").isFalse();
      assertThat(store.find("b").orElseThrow().owner()).isEqualTo("ob");
    } finally {
      stuck.unblock.countDown();
      ra.cancel();
      rb.cancel();
    }
  }
}
