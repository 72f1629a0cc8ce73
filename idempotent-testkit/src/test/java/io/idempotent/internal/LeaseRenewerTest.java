package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyConfig;
import io.idempotent.OnInProgress;
import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LeaseRenewerTest {

  private final InMemoryTestStore store = new InMemoryTestStore();
  private final IdempotencyEngine engine = new IdempotencyEngine(IdempotencyConfig.builder().store(store).build());
  private final CallPlan plan = new CallPlan("n", "n", "", null, null, null, OnInProgress.THROW,
      new Class[0], false, false, String.class, null, null);

  private static void awaitEnd(Thread t) throws InterruptedException {
    t.join(10_000);
  }

  @Test
  void thread_endsWhenIdle_andARegistrationStartsAnotherThatRenews() throws Exception {
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener(), Duration.ofMillis(50).toNanos());
    store.claim("k1", "", "o1", Duration.ofMillis(300));
    renewer.register(plan, store, "k1", "o1", Duration.ofMillis(300), Duration.ofHours(1)).cancel();
    Thread first = renewer.thread();
    assertThat(first).isNotNull();
    awaitEnd(first);
    assertThat(first.isAlive()).isFalse();
    assertThat(renewer.thread()).isNull();

    store.claim("k2", "", "o2", Duration.ofMillis(300));
    LeaseRenewer.Renewal r = renewer.register(plan, store, "k2", "o2", Duration.ofMillis(300), Duration.ofHours(1));
    Thread second = renewer.thread();
    assertThat(second).isNotNull().isNotSameAs(first);
    Thread.sleep(900); // three leases: only renewal keeps the claim
    assertThat(store.find("k2")).isPresent();
    r.cancel();
  }

  @Test
  void lanes_ofStoresNoLongerRenewed_areDroppedWhenTheThreadGoesIdle() throws Exception {
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener(), Duration.ofMillis(50).toNanos());
    List<InMemoryTestStore> stores = List.of(new InMemoryTestStore(), new InMemoryTestStore(), new InMemoryTestStore());
    List<LeaseRenewer.Renewal> renewals = new java.util.ArrayList<>();
    for (InMemoryTestStore s : stores) {
      s.claim("k", "", "o", Duration.ofMillis(300));
      renewals.add(renewer.register(plan, s, "k", "o", Duration.ofMillis(300), Duration.ofHours(1)));
    }
    Thread.sleep(450); // past the first renewal of each: every store has had a lane
    assertThat(renewer.laneCount()).isEqualTo(stores.size());
    renewals.forEach(LeaseRenewer.Renewal::cancel);
    Thread timekeeper = renewer.thread();
    awaitEnd(timekeeper);
    assertThat(timekeeper.isAlive()).isFalse();
    assertThat(renewer.laneCount()).as("lanes kept after every renewal ended").isZero();
  }

  @Test
  void claimTakenOverBeforeItsRenewal_isReportedAsLost_andNoLongerRenewed() throws Exception {
    List<String> reports = new CopyOnWriteArrayList<>();
    LeaseRenewer renewer = new LeaseRenewer(new LeaseRenewer.Listener() {
      @Override
      public void renewalFailed(CallPlan p, String key, RuntimeException error) {
        reports.add("failed " + key);
      }

      @Override
      public void leaseLost(CallPlan p, String key) {
        reports.add("lost " + key);
      }

      @Override
      public void runTimeExceeded(CallPlan p, String key, Duration maxRunTime) {
        reports.add("too long " + key);
      }
    });
    store.claim("k", "", "first", Duration.ofMillis(300));
    LeaseRenewer.Renewal r = renewer.register(plan, store, "k", "first", Duration.ofMillis(300), Duration.ofHours(1));
    store.release("k", "first");
    store.claim("k", "", "second", Duration.ofMinutes(1)); // another caller holds the key now
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (reports.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(reports).containsExactly("lost k");
    assertThat(store.find("k").orElseThrow().owner()).isEqualTo("second");
    r.cancel();
  }

  /** A store whose renewals hang, as when the application has exhausted its connection pool. */
  private static final class StuckRenewals extends InMemoryTestStore {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch unblock = new CountDownLatch(1);
    final List<String> renewed = new CopyOnWriteArrayList<>();

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
    StuckRenewals stuck = new StuckRenewals();
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener());
    Duration lease = Duration.ofMillis(300);
    stuck.claim("a", "", "oa", lease);
    stuck.claim("c", "", "oc", lease);
    LeaseRenewer.Renewal ra = renewer.register(plan, stuck, "a", "oa", lease, Duration.ofHours(1));
    assertThat(stuck.entered.await(5, TimeUnit.SECONDS)).isTrue();
    LeaseRenewer.Renewal rc = renewer.register(plan, stuck, "c", "oc", lease, Duration.ofHours(1));
    Thread.sleep(400); // c falls due and waits in the lane behind a's hanging renewal
    rc.cancel(); // its call ended: in JOINED mode its row may now be locked by the caller's completion
    stuck.unblock.countDown();
    Thread.sleep(300);
    ra.cancel();
    assertThat(stuck.renewed).contains("a").doesNotContain("c");
  }

  @Test
  void storeWhoseRenewalsHang_doesNotStopAnotherStoresRenewals() throws Exception {
    StuckRenewals stuck = new StuckRenewals();
    LeaseRenewer renewer = new LeaseRenewer(engine.renewalListener());
    Duration lease = Duration.ofMillis(300);
    stuck.claim("a", "", "oa", lease);
    LeaseRenewer.Renewal ra = renewer.register(plan, stuck, "a", "oa", lease, Duration.ofHours(1));
    assertThat(stuck.entered.await(5, TimeUnit.SECONDS)).as("store a's renewal started and hangs").isTrue();
    store.claim("b", "", "ob", lease);
    LeaseRenewer.Renewal rb = renewer.register(plan, store, "b", "ob", lease, Duration.ofHours(1));
    try {
      Thread.sleep(1_000); // more than three leases: only renewals keep store b's claim
      assertThat(store.claim("b", "", "intruder", lease).claimed()).as("b's claim was kept").isFalse();
      assertThat(store.find("b").orElseThrow().owner()).isEqualTo("ob");
    } finally {
      stuck.unblock.countDown();
      ra.cancel();
      rb.cancel();
    }
  }
}
