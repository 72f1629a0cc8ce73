package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.CheckedSupplier;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.jdbi.TransactionMode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An owner that stalls past its lease (renewal off, or renewal failing) and then resumes: another
 * instance has taken over meanwhile. On every database the stalled owner's completion and its release
 * change nothing of the new owner's record, and the loss is reported ({@code LEASE_LOST}). In joined
 * mode its transaction must not commit its database writes either.
 */
class StalledOwnerFencingTest {

  private static final String NAME = "fencing.charge";
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Ledger LEDGER = new Ledger("rel_ledger");

  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final AtomicInteger executions = new AtomicInteger();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** B's view: calls until the key is no longer in progress; returns the result and how often B was refused. */
  private static <T> Map.Entry<T, Integer> callUntilTakenOver(AppInstance b, String key, Class<T> type,
      CheckedSupplier<T, Exception> body) throws Exception {
    return untilTakenOver(() -> b.idempotency.call(NAME, type).key(key).run(body));
  }

  /** Repeats {@code call} while it is refused as in progress; returns its result and how often it was refused. */
  private static <T> Map.Entry<T, Integer> untilTakenOver(java.util.concurrent.Callable<T> call) throws Exception {
    int refusals = 0;
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      try {
        return Map.entry(call.call(), refusals);
      } catch (IdempotencyInProgressException e) {
        refusals++;
        assertThat(System.nanoTime() - deadline).as("taken over within %s", PATIENCE).isNegative();
        Thread.sleep(25);
      }
    }
  }

  private static String replay(AppInstance any, String key) {
    CallResult<String> r = any.idempotency.call(NAME, String.class).key(key).execute(() -> "must not run");
    assertThat(r.replayed()).as("a later call replays").isTrue();
    return r.value();
  }

  /** Counts a run of a method body (A's, B's or a third caller's) and returns its result. */
  private String ran(String result) {
    executions.incrementAndGet();
    return result;
  }

  /**
   * Replays the key once more and prints what was counted: a record that is not replayed is lost, one that
   * is not the new owner's was overwritten, and runs beyond A's and B's are duplicates (in joined mode:
   * database effects beyond one). All three must be 0.
   */
  private void report(String test, Database db, AppInstance any, String key, int duplicated) {
    report(test, db, any, key, duplicated, "B");
  }

  /** {@code winner}: whose outcome the key must hold in the end. */
  private void report(String test, Database db, AppInstance any, String key, int duplicated, String winner) {
    CallResult<String> last = any.idempotency.call(NAME, String.class).key(key).execute(() -> "must not run");
    int lost = last.replayed() ? 0 : 1;
    int overwrites = last.replayed() && !last.value().equals(winner) ? 1 : 0;
    Figures.of("StalledOwnerFencingTest." + test + "[" + db + "]")
        .set("threads", 2).set("keys", 1).set("duplicatesSent", 3)
        .set("executions", executions.get()).set("faults", 1).set("lost", lost).set("duplicated", duplicated)
        .set("overwrites", overwrites)
        .report();
    assertThat(lost).as("lost").isZero();
    assertThat(overwrites).as("overwrites").isZero();
    assertThat(duplicated).as("duplicated").isZero();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void stalledOwner_completingAfterATakeover_cannotOverwriteTheNewOwnersRecord(Database db) throws Exception {
    db.requireReachable();
    try (AppInstance a = AppInstance.on(db, "a", TransactionMode.INDEPENDENT, LEASE, false);
         AppInstance b = AppInstance.on(db, "b", TransactionMode.INDEPENDENT, LEASE, false)) {
      String key = Calls.newRun();
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch resume = new CountDownLatch(1);
      Future<String> stalled = executor.submit(() -> a.idempotency.call(NAME, String.class).key(key).run(() -> {
        inside.countDown();
        resume.await(); // stalls past its lease: a GC pause, a slow dependency
        return ran("A");
      }));
      assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

      Map.Entry<String, Integer> taken = callUntilTakenOver(b, key, String.class, () -> ran("B"));
      assertThat(taken.getKey()).isEqualTo("B");
      assertThat(taken.getValue()).as("refused while A's lease was alive").isPositive();
      assertThat(b.events.count(Type.LEASE_TAKEN_OVER)).isEqualTo(1);

      resume.countDown();
      assertThat(stalled.get(10, TimeUnit.SECONDS)).as("A's own caller still gets A's result").isEqualTo("A");
      assertThat(a.events.count(Type.LEASE_LOST)).as("the loss is reported").isEqualTo(1);
      assertThat(a.events.count(Type.EXECUTED)).isZero();
      assertThat(replay(a, key)).as("the record is still B's").isEqualTo("B");
      report("completeAfterTakeover", db, a, key, executions.get() - 2);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void stalledOwner_resumingWhileTheNewOwnerRuns_cannotCompleteOverItsClaim(Database db) throws Exception {
    db.requireReachable();
    try (AppInstance a = AppInstance.on(db, "a", TransactionMode.INDEPENDENT, LEASE, false);
         AppInstance b = AppInstance.on(db, "b", TransactionMode.INDEPENDENT, LEASE, true)) {
      String key = Calls.newRun();
      CountDownLatch aInside = new CountDownLatch(1);
      CountDownLatch aResume = new CountDownLatch(1);
      CountDownLatch bInside = new CountDownLatch(1);
      CountDownLatch bResume = new CountDownLatch(1);
      Future<String> stalled = executor.submit(() -> a.idempotency.call(NAME, String.class).key(key).run(() -> {
        aInside.countDown();
        aResume.await();
        return ran("A");
      }));
      assertThat(aInside.await(10, TimeUnit.SECONDS)).isTrue();
      Future<Map.Entry<String, Integer>> newOwner = executor.submit(() -> callUntilTakenOver(b, key, String.class, () -> {
        bInside.countDown();
        bResume.await();
        return ran("B");
      }));
      assertThat(bInside.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("B took over").isTrue();

      aResume.countDown();
      assertThat(stalled.get(10, TimeUnit.SECONDS)).isEqualTo("A");
      assertThat(a.events.count(Type.LEASE_LOST)).isEqualTo(1);
      // B's claim is untouched: a third caller is still refused
      assertThatThrownBy(() -> a.idempotency.call(NAME, String.class).key(key).run(() -> ran("C")))
          .isInstanceOf(IdempotencyInProgressException.class);

      bResume.countDown();
      assertThat(newOwner.get(10, TimeUnit.SECONDS).getKey()).isEqualTo("B");
      assertThat(b.events.count(Type.EXECUTED)).isEqualTo(1);
      assertThat(replay(a, key)).isEqualTo("B");
      report("completeWhileNewOwnerRuns", db, a, key, executions.get() - 2);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void stalledOwner_failingAfterATakeover_cannotReleaseTheNewOwnersRecord(Database db) throws Exception {
    db.requireReachable();
    try (AppInstance a = AppInstance.on(db, "a", TransactionMode.INDEPENDENT, LEASE, false);
         AppInstance b = AppInstance.on(db, "b", TransactionMode.INDEPENDENT, LEASE, false)) {
      String key = Calls.newRun();
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch resume = new CountDownLatch(1);
      Future<String> stalled = executor.submit(() -> a.idempotency.call(NAME, String.class).key(key).run(() -> {
        inside.countDown();
        resume.await();
        executions.incrementAndGet();
        throw new IllegalStateException("gateway timeout after the stall");
      }));
      assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(callUntilTakenOver(b, key, String.class, () -> ran("B")).getKey()).isEqualTo("B");

      resume.countDown();
      assertThatThrownBy(() -> stalled.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasRootCauseMessage("gateway timeout after the stall");
      assertThat(a.events.count(Type.LEASE_LOST)).as("the failed release is reported").isEqualTo(1);
      assertThat(a.events.count(Type.RELEASED_ON_FAILURE)).isZero();
      assertThat(replay(a, key)).as("B's record was not released").isEqualTo("B");
      report("releaseAfterTakeover", db, a, key, executions.get() - 2);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void ownerWhoseRenewalsFail_losesItsLease_andIsFencedWhenItCompletes(Database db) throws Exception {
    db.requireReachable();
    RenewalBlockingStore[] blocking = new RenewalBlockingStore[1];
    UnaryOperator<io.idempotent.spi.IdempotencyStore> wrap = s -> blocking[0] = new RenewalBlockingStore(s);
    try (AppInstance a = AppInstance.on(db.newPool(4, "a"), TransactionMode.INDEPENDENT, LEASE, true, wrap);
         AppInstance b = AppInstance.on(db, "b", TransactionMode.INDEPENDENT, LEASE, false)) {
      blocking[0].blocked.set(true); // renewal is on, but every renewal fails (its connection is cut)
      String key = Calls.newRun();
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch resume = new CountDownLatch(1);
      Future<String> stalled = executor.submit(() -> a.idempotency.call(NAME, String.class).key(key).run(() -> {
        inside.countDown();
        resume.await();
        return ran("A");
      }));
      assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(callUntilTakenOver(b, key, String.class, () -> ran("B")).getKey()).isEqualTo("B");
      assertThat(blocking[0].blockedRenewals).as("renewals were attempted and failed").hasPositiveValue();
      assertThat(a.events.count(Type.STORE_ERROR)).as("failed renewals are reported").isPositive();

      resume.countDown();
      assertThat(stalled.get(10, TimeUnit.SECONDS)).isEqualTo("A");
      assertThat(a.events.count(Type.LEASE_LOST)).isEqualTo(1);
      assertThat(replay(a, key)).isEqualTo("B");
      report("renewalsFail", db, a, key, executions.get() - 2);
    }
  }

  /**
   * A transactional call writes its claim in its caller's transaction, uncommitted: however long the owner
   * stalls, nobody else can see or take over the claim, so the key is in progress until that transaction
   * ends, and its one commit holds the write and the outcome together.
   */
  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void stalledOwnerInJoinedMode_keepsItsKeyUntilItsTransactionEnds_andCommitsOnce(Database db) throws Exception {
    db.requireReachable();
    try (AppInstance a = AppInstance.on(db, "a", TransactionMode.JOINED, LEASE, false);
         AppInstance b = AppInstance.on(db, "b", TransactionMode.JOINED, LEASE, false)) {
      LEDGER.createTable(a.jdbi);
      String run = Calls.newRun();
      String key = run + ":k";
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch resume = new CountDownLatch(1);
      Future<String> stalled = executor.submit(() -> a.jdbi.inTransaction(h ->
          a.idempotency.call(NAME, String.class).key(key).run(() -> {
            LEDGER.append(h, run, key, "A"); // the business write, in the caller's transaction
            inside.countDown();
            resume.await();
            return ran("A");
          })));
      assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(LEASE.multipliedBy(3).toMillis()); // many leases: there is none to run out
      int refused = 0;
      for (int i = 0; i < 5; i++) {
        try {
          b.jdbi.inTransaction(h -> b.idempotency.call(NAME, String.class).key(key).run(() -> {
            LEDGER.append(h, run, key, "B");
            return ran("B");
          }));
        } catch (IdempotencyInProgressException e) {
          refused++;
        }
      }
      assertThat(refused).as("B never takes the key over while A's transaction is open").isEqualTo(5);

      resume.countDown();
      assertThat(stalled.get(10, TimeUnit.SECONDS)).isEqualTo("A");
      Map<String, Integer> effects = LEDGER.rowsPerKey(a.jdbi, run);
      assertThat(effects).as("exactly one database effect").isEqualTo(Map.of(key, 1));
      assertThat(LEDGER.executors(a.jdbi, run)).containsEntry(key, "A");
      assertThat(replay(b, key)).isEqualTo("A");
      report("joinedMode", db, a, key, effects.values().stream().mapToInt(n -> n - 1).sum(), "A");
    }
  }
}
