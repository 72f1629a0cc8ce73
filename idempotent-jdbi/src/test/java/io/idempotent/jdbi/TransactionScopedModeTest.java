package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The transaction-scoped modes: the claim row stays uncommitted in the transaction that records the outcome
 * (the store's own, or the caller's), and a duplicate is answered without waiting for its row lock.
 */
class TransactionScopedModeTest {

  private static final String NAME = "scoped.create";

  private static Jdbi prepare(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    db.storeBuilder().build(); // the table, made once per database
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS test_orders (id VARCHAR(100) PRIMARY KEY)"));
    return jdbi;
  }

  private static Idempotency on(JdbiIdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  private static String storedKey(String key) {
    return StoredKeys.compose(NAME, null, key, JdbiIdempotencyStore.KEY_RULES);
  }

  /** The committed row's state as another connection sees it, or null. */
  private static String committedState(TestDatabase db, String key) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement("SELECT state FROM idempotency_record WHERE idempotency_key = ?")) {
      ps.setString(1, storedKey(key));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static boolean orderExists(Jdbi jdbi, String id) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM test_orders WHERE id = :id").bind("id", id)
          .mapTo(Integer.class).one() == 1;
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void scoped_claimStaysUncommittedWhileTheMethodRuns_andCommitsOnceWithTheOutcome(TestDatabase db) throws Exception {
    prepare(db);
    CommitCounter counted = new CommitCounter(db.pool());
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(counted.dataSource)
        .transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
    Idempotency idempotency = on(store);
    String key = "k-" + UUID.randomUUID();
    counted.commits.set(0); // building read the metadata and the key column
    counted.autoCommitted.set(0);

    String result = idempotency.call(NAME, String.class).key(key).run(() -> {
      assertThat(committedState(db, key)).as("nothing committed while the method runs").isNull();
      return "done";
    });

    assertThat(result).isEqualTo("done");
    assertThat(counted.commits.get()).as("commits of a first call").isEqualTo(1);
    assertThat(counted.autoCommitted.get()).as("writes committed on their own").isZero();
    assertThat(committedState(db, key)).isEqualTo("COMPLETED");
    assertThat(idempotency.call(NAME, String.class).key(key).execute(() -> "again").replayed()).isTrue();
  }

  @Test
  void scoped_onEmbeddedH2_aReplayIsOneRead_andNoClaimSetsTheLockTimeoutBySql() {
    prepare(TestDatabase.H2);
    CommitCounter counted = new CommitCounter(TestDatabase.H2.pool());
    Idempotency idempotency = on(JdbiIdempotencyStore.builder(counted.dataSource)
        .transactionMode(TransactionMode.TRANSACTION_SCOPED).build());
    String key = "k-" + UUID.randomUUID();
    counted.executed.clear();
    assertThat(idempotency.call(NAME, String.class).key(key).execute(() -> "done").replayed()).isFalse();
    // a SET clears every H2 session's parsed statements: the timeout is set on the session instead
    assertThat(counted.executed).as("a first call's statements").noneMatch(sql -> sql.contains("LOCK_TIMEOUT"));
    counted.executed.clear();
    counted.rollbacks.set(0);

    assertThat(idempotency.call(NAME, String.class).key(key).execute(() -> "again").replayed()).isTrue();

    assertThat(counted.executed).as("a replay's statements").hasSize(1).allMatch(sql -> sql.startsWith("SELECT "));
    assertThat(counted.rollbacks.get()).as("a replay begins no transaction to roll back").isZero();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a duplicate that waited for the row lock would hang
  void scoped_duplicateWhileRunning_isAnsweredAtOnce_throwSkipAndWait(TestDatabase db) throws Exception {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
    List<IdempotencyEvent.Type> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store)
        .listener(e -> events.add(e.type())).build());
    String key = "k-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> first = pool.submit(() -> idempotency.call(NAME, String.class).key(key).run(() -> {
        runs.incrementAndGet();
        running.countDown();
        finish.await();
        return "first";
      }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      long t0 = System.nanoTime();
      assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).run(() -> "second"))
          .isInstanceOf(IdempotencyInProgressException.class);
      CallResult<String> skipped = idempotency.call(NAME, String.class).key(key).onInProgress(OnInProgress.SKIP)
          .execute(() -> "second");
      assertThat(skipped.outcome()).isEqualTo(CallOutcome.SKIPPED);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("answered without waiting for the row lock")
          .isLessThan(Duration.ofSeconds(3));

      Future<CallResult<String>> waiter = pool.submit(() -> idempotency.call(NAME, String.class).key(key)
          .onInProgress(OnInProgress.WAIT).waitTimeout(Duration.ofSeconds(20)).execute(() -> "second"));
      Thread.sleep(200);
      assertThat(waiter.isDone()).as("WAIT waits for the running call").isFalse();
      finish.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("first");
      CallResult<String> waited = waiter.get(20, TimeUnit.SECONDS);
      assertThat(waited.replayed()).isTrue();
      assertThat(waited.value()).isEqualTo("first");
      assertThat(runs).hasValue(1);
      // MariaDB and H2 cannot see the running claim, so the waiter claims again between its looks: still
      // one wait, one event
      assertThat(events.stream().filter(IdempotencyEvent.Type.WAITED::equals)).as("one WAITED per waiting call")
          .hasSize(1);
    } finally {
      finish.countDown();
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void scoped_methodThatThrows_leavesNothing_andARetryRunsAgain(TestDatabase db) throws Exception {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
    Idempotency idempotency = on(store);
    String key = "k-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).run(() -> {
      runs.incrementAndGet();
      throw new IllegalStateException("transient");
    })).hasMessage("transient");
    assertThat(committedState(db, key)).isNull();

    assertThat(idempotency.call(NAME, String.class).key(key).run(() -> "ok " + runs.incrementAndGet()))
        .isEqualTo("ok 2");
    assertThat(committedState(db, key)).isEqualTo("COMPLETED");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void scoped_methodLongerThanItsLease_isNotTakenOver_withoutLeaseRenewal(TestDatabase db) throws Exception {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
    List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).leaseRenewal(false)
        .defaultLease(Duration.ofSeconds(1)).listener(e -> events.add(e.type())).build());
    String key = "k-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = pool.submit(() -> idempotency.call(NAME, String.class).key(key).run(() -> {
        runs.incrementAndGet();
        running.countDown();
        finish.await();
        return "first";
      }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(2_500); // two and a half leases
      assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).run(() -> "second " + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyInProgressException.class);
      finish.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("first");
      assertThat(runs).hasValue(1);
      assertThat(events).doesNotContain(IdempotencyEvent.Type.LEASE_LOST, IdempotencyEvent.Type.LEASE_TAKEN_OVER);
      assertThat(committedState(db, key)).isEqualTo("COMPLETED");
    } finally {
      finish.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * A pool of N connections and 10×N concurrent duplicates of one slow call: one execution; every other
   * caller is answered (replayed, or refused once its wait timed out) within its wait timeout plus the pool's
   * connection timeout, so nobody holds a connection while waiting and nothing deadlocks.
   */
  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void scoped_tenTimesMoreDuplicatesThanConnections_oneExecution_noDeadlock(TestDatabase db) throws Exception {
    prepare(db);
    int connections = 4;
    int callers = 10 * connections;
    Duration waitTimeout = Duration.ofSeconds(5);
    try (HikariDataSource small = db.newPool(connections, "scoped-" + connections,
        hc -> hc.setConnectionTimeout(2_000))) {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(small)
          .transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
      Idempotency idempotency = on(store);
      String key = "k-" + UUID.randomUUID();
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      List<Future<Long>> answered = new ArrayList<>();
      try {
        for (int i = 0; i < callers; i++) {
          answered.add(pool.submit(() -> {
            start.await();
            long t0 = System.nanoTime();
            CallResult<String> r = idempotency.call(NAME, String.class).key(key).onInProgress(OnInProgress.WAIT)
                .waitTimeout(waitTimeout).execute(() -> {
                  runs.incrementAndGet();
                  Thread.sleep(1_000);
                  return "once";
                });
            assertThat(r.value()).isEqualTo("once");
            return System.nanoTime() - t0;
          }));
        }
        start.countDown();
        for (Future<Long> f : answered) {
          assertThat(Duration.ofNanos(f.get(30, TimeUnit.SECONDS))).as("no caller waits past its wait timeout")
              .isLessThan(waitTimeout.plusSeconds(2));
        }
        assertThat(runs).hasValue(1);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joinedScoped_claimOutcomeAndBusinessWrite_commitTogether_orNotAtAll(TestDatabase db) throws Exception {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED).build();
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      create(idempotency, h, order, runs);
      assertThat(committedState(db, order)).as("the claim is not committed on its own").isNull();
      throw new IllegalStateException("forced rollback");
    })).hasMessage("forced rollback");
    assertThat(orderExists(jdbi, order)).isFalse();
    assertThat(committedState(db, order)).as("rolled back with the transaction").isNull();

    jdbi.useTransaction(h -> {
      create(idempotency, h, order, runs);
      // a second call in the same transaction sees the uncommitted outcome and replays it
      assertThat(idempotency.call(NAME, String.class).key(order).execute(() -> "again").replayed()).isTrue();
    });
    assertThat(runs).hasValue(2);
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(committedState(db, order)).isEqualTo("COMPLETED");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void joinedScoped_duplicateInAnotherTransaction_isAnsweredAtOnce_andThenReplays(TestDatabase db) throws Exception {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED).build();
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = pool.submit(() -> jdbi.inTransaction(h -> idempotency.call(NAME, String.class).key(order)
          .run(() -> {
            runs.incrementAndGet();
            h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
            running.countDown();
            if (!finish.await(20, TimeUnit.SECONDS)) {
              throw new IllegalStateException("not released");
            }
            return "created";
          })));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> jdbi.useTransaction(h -> create(idempotency, h, order, runs)))
          .isInstanceOf(IdempotencyInProgressException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
      finish.countDown();
      first.get(20, TimeUnit.SECONDS);
      jdbi.useTransaction(h -> assertThat(idempotency.call(NAME, String.class).key(order)
          .execute(() -> "again").replayed()).isTrue());
      assertThat(runs).hasValue(1);
    } finally {
      finish.countDown();
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joinedScoped_withoutATransaction_isRefusedBeforeTheMethodRuns_unlessAllowed(TestDatabase db) throws Exception {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED).build();
    String key = "k-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(() -> on(store).call(NAME, String.class).key(key).run(() -> "ran " + runs.incrementAndGet()))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("takes this call as transactional");
    assertThat(runs).hasValue(0);
    assertThat(committedState(db, key)).isNull();

    JdbiIdempotencyStore lenient = db.storeBuilder().transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED)
        .requireTransaction(false).build();
    assertThat(on(lenient).call(NAME, String.class).key(key).run(() -> "ran " + runs.incrementAndGet()))
        .isEqualTo("ran 1");
    assertThat(committedState(db, key)).isEqualTo("COMPLETED");
  }

  /**
   * Allowed to run without a transaction of the caller's, a joined transaction-scoped call claims in a
   * transaction of the store's own. A call nested in its method is not part of that transaction: the
   * nested call's record stands when the outer call then fails and its transaction rolls back.
   */
  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joinedScoped_allowedWithoutATransaction_aNestedCallDoesNotJoinTheStoresOwnTransaction(TestDatabase db)
      throws Exception {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED)
        .requireTransaction(false).build();
    Idempotency idempotency = on(store);
    String outer = "outer-" + UUID.randomUUID();
    String inner = "inner-" + UUID.randomUUID();
    AtomicInteger innerRuns = new AtomicInteger();

    assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(outer).run(() -> {
      idempotency.call(NAME, String.class).key(inner).run(() -> "inner " + innerRuns.incrementAndGet());
      throw new IllegalStateException("the outer call fails after the inner one completed");
    })).isInstanceOf(IllegalStateException.class);

    assertThat(committedState(db, outer)).isNull();
    assertThat(committedState(db, inner)).isEqualTo("COMPLETED");
    assertThat(idempotency.call(NAME, String.class).key(inner).run(() -> "inner " + innerRuns.incrementAndGet()))
        .isEqualTo("inner 1");
    assertThat(innerRuns).hasValue(1);
  }

  /**
   * A transactional call writes its claim in the caller's transaction, on the connection that transaction
   * holds: in every mode it takes no second connection, so a pool of N serves N callers in transactions at
   * once, even when every connection is in one.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("transactionalCalls")
  void transactional_fewerConnectionsThanThreads_takesNoSecondConnection(TestDatabase db, TransactionMode mode)
      throws Exception {
    prepare(db);
    int connections = 4;
    int threads = 8;
    try (HikariDataSource small = db.newPool(connections, "joined-scoped", hc -> hc.setConnectionTimeout(1_000))) {
      Jdbi jdbi = Jdbi.create(small);
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).transactionMode(mode).build();
      Idempotency idempotency = on(store);
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch inside = new CountDownLatch(connections);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          done.add(pool.submit(() -> {
            for (int i = 0; i < 5; i++) {
              String order = "order-" + UUID.randomUUID();
              jdbi.useTransaction(h -> {
                inside.countDown();
                inside.await(); // every connection of the pool is in a caller's transaction now
                idempotency.call("orders.create", String.class).key(order).effects(Effects.TRANSACTIONAL).run(() -> {
                  runs.incrementAndGet();
                  h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
                  return "created";
                });
              });
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
        assertThat(runs).hasValue(threads * 5);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> transactionalCalls() {
    return TestDatabase.all().flatMap(db -> java.util.stream.Stream.of(TransactionMode.values())
        .map(m -> org.junit.jupiter.params.provider.Arguments.of(db, m)));
  }

  /**
   * PostgreSQL finds a running claim by an advisory lock on a 64-bit hash of the key: another holder of that
   * number (a key sharing the hash, or the application's own lock) makes a call be refused or wait, and the
   * call runs once the number is free.
   */
  @Test
  void postgres_aKeyWhoseLockNumberIsHeldElsewhere_isRefusedOrWaits_andRunsOnceItIsFree() throws Exception {
    TestDatabase db = TestDatabase.POSTGRES;
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build();
    Idempotency idempotency = on(store);
    String key = "k-" + UUID.randomUUID();
    long number = new NoWaitClaim.Postgres(JdbiIdempotencyStore.statements(SqlDialect.POSTGRESQL, TableName.of(SchemaScript.DEFAULT_TABLE),
        false)).lockKey(storedKey(key));
    AtomicInteger runs = new AtomicInteger();
    try (Connection other = db.connect()) {
      other.setAutoCommit(false);
      try (PreparedStatement ps = other.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
        ps.setLong(1, number);
        ps.execute();
      }
      assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).run(() -> "ran " + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyInProgressException.class);
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).onInProgress(OnInProgress.WAIT)
          .waitTimeout(Duration.ofMillis(300)).run(() -> "ran " + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyInProgressException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
      assertThat(runs).hasValue(0);
      other.rollback();
    }
    assertThat(idempotency.call(NAME, String.class).key(key).run(() -> "ran " + runs.incrementAndGet()))
        .isEqualTo("ran 1");
  }

  @Test
  void scoped_isRefusedWithRelaxedClaimDurability() {
    TestDatabase.POSTGRES.requireReachable();
    assertThatThrownBy(() -> TestDatabase.POSTGRES.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED)
        .relaxedClaimDurability(true).build()).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("TRANSACTION_SCOPED");
  }

  @Test
  void modesAreNamedByTheProperty() {
    assertThat(TransactionMode.ofProperty("transaction-scoped")).isEqualTo(TransactionMode.TRANSACTION_SCOPED);
    assertThat(TransactionMode.ofProperty(" Joined-Transaction-Scoped "))
        .isEqualTo(TransactionMode.JOINED_TRANSACTION_SCOPED);
    assertThat(TransactionMode.ofProperty("joined_transaction_scoped"))
        .isEqualTo(TransactionMode.JOINED_TRANSACTION_SCOPED);
  }

  private static void create(Idempotency idempotency, Handle h, String order, AtomicInteger runs) {
    idempotency.call(NAME, String.class).key(order).run(() -> {
      runs.incrementAndGet();
      h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
      return "created";
    });
  }
}
