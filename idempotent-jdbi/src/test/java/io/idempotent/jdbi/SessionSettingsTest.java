package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.Effects;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a DBA sets on the sessions of the store's pool, every isolation level as the session default and an
 * idle-in-transaction timeout, against every mode: one committed effect per key, and every caller of a key
 * that gets an answer gets the same one. The store's own transactions run at READ COMMITTED whatever the
 * default, and its held claim transaction is not ended by the timeout; a caller's transaction is the
 * caller's (under SERIALIZABLE it may fail to commit, and the caller retries, as any such application does).
 */
class SessionSettingsTest {

  private static final String NAME = "settings.pay";

  /** The statement that makes {@code level} the session's default on {@code db}. */
  private static String sessionIsolation(TestDatabase db, String level) {
    return db == TestDatabase.MARIADB ? "SET SESSION TRANSACTION ISOLATION LEVEL " + level
        : "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level;
  }

  static Stream<Arguments> isolationCases() {
    List<Arguments> all = new ArrayList<>();
    for (TestDatabase db : List.of(TestDatabase.H2, TestDatabase.POSTGRES, TestDatabase.MARIADB)) {
      List<String> levels = new ArrayList<>(List.of("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"));
      if (db == TestDatabase.MARIADB) {
        levels.add("READ UNCOMMITTED");
      }
      for (String level : levels) {
        for (TransactionMode mode : TransactionMode.values()) {
          all.add(Arguments.of(db, level, mode));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("isolationCases")
  void everyIsolationLevelAsTheSessionDefault_oneCommittedEffectPerKey_andEqualValues(
      TestDatabase db, String level, TransactionMode mode) throws Exception {
    db.requireReachable();
    String table = "settings_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffffff);
    String ledger = table + "_ledger";
    int threads = 8;
    int keys = 12;
    try (HikariDataSource pool = db.newPool(threads + 2, "isolation",
        hc -> hc.setConnectionInitSql(sessionIsolation(db, level)))) {
      Jdbi jdbi = Jdbi.create(pool);
      jdbi.useHandle(h -> h.execute("CREATE TABLE " + ledger + " (k VARCHAR(100), payment VARCHAR(100))"));
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).transactionMode(mode)
          .createSchema(true).build();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      boolean inTransaction = mode == TransactionMode.JOINED || mode == TransactionMode.JOINED_TRANSACTION_SCOPED;
      Map<String, Set<String>> answers = new ConcurrentHashMap<>();
      AtomicInteger executions = new AtomicInteger();
      ExecutorService pool2 = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          done.add(pool2.submit(() -> {
            for (int k = 0; k < keys; k++) {
              String key = "k" + k;
              String answer = payUntilAnswered(jdbi, idempotency, ledger, key, inTransaction, executions);
              answers.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet()).add(answer);
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool2.shutdownNow();
      }
      Map<String, Integer> rows = new java.util.TreeMap<>();
      jdbi.useHandle(h -> h.createQuery("SELECT k, COUNT(*) FROM " + ledger + " GROUP BY k")
          .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2))).forEach(e -> rows.put(e.getKey(), e.getValue())));
      assertThat(rows).as("one committed payment per key").hasSize(keys).allSatisfy((k, n) -> assertThat(n).isOne());
      assertThat(answers).as("every caller of a key got the same payment")
          .allSatisfy((k, seen) -> assertThat(seen).hasSize(1));
      jdbi.useHandle(h -> {
        h.execute("DROP TABLE " + ledger);
        h.execute("DROP TABLE " + table);
      });
    }
  }

  /**
   * Pays once for {@code key} as an application would: retried while the key is in progress elsewhere, and,
   * in a transaction, when the transaction fails to serialize (SERIALIZABLE, a deadlock) and rolls back.
   */
  private static String payUntilAnswered(Jdbi jdbi, Idempotency idempotency, String ledger, String key,
      boolean inTransaction, AtomicInteger executions) throws InterruptedException {
    for (int attempt = 0; attempt < 400; attempt++) {
      try {
        if (inTransaction) {
          return jdbi.inTransaction(h -> pay(idempotency, h, ledger, key, Effects.UNDECLARED, executions));
        }
        try (Handle h = jdbi.open()) {
          return pay(idempotency, h, ledger, key, Effects.EXTERNAL, executions);
        }
      } catch (IdempotencyInProgressException e) {
        Thread.sleep(5);
      } catch (RuntimeException e) {
        if (!retryable(e)) {
          throw e;
        }
        Thread.sleep(5);
      }
    }
    throw new AssertionError("no answer for " + key);
  }

  private static String pay(Idempotency idempotency, Handle h, String ledger, String key, Effects effects,
      AtomicInteger executions) {
    return idempotency.call(NAME, String.class).key(key).effects(effects).onInProgress(OnInProgress.THROW).run(() -> {
      String payment = key + "-" + executions.incrementAndGet();
      h.execute("INSERT INTO " + ledger + " (k, payment) VALUES (?, ?)", key, payment);
      return payment;
    });
  }

  /** A serialization failure or a deadlock (SQLState class 40, MariaDB's 1213), which rolled the transaction back. */
  private static boolean retryable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("40")) {
        return true;
      }
    }
    return false;
  }

  static Stream<Arguments> idleCases() {
    return Stream.of(TestDatabase.POSTGRES, TestDatabase.MARIADB).flatMap(db ->
        Stream.of(TransactionMode.INDEPENDENT, TransactionMode.TRANSACTION_SCOPED).map(m -> Arguments.of(db, m)));
  }

  /**
   * An idle-in-transaction timeout of one second on every session of the pool; the method runs three: the
   * claim transaction the scoped mode holds while it runs is not ended, and duplicates every 100 ms never run.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("idleCases")
  void anIdleInTransactionTimeoutShorterThanTheMethod_endsNoClaim_andTheKeyRunsOnce(TestDatabase db,
      TransactionMode mode) throws Exception {
    db.requireReachable();
    String table = "settings_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffffff);
    String timeout = db == TestDatabase.POSTGRES ? "SET idle_in_transaction_session_timeout = '1s'"
        : "SET SESSION idle_transaction_timeout = 1";
    try (HikariDataSource pool = db.newPool(6, "idle", hc -> hc.setConnectionInitSql(timeout))) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).transactionMode(mode)
          .createSchema(true).build();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      AtomicInteger executions = new AtomicInteger();
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        Future<String> first = threads.submit(() -> idempotency.call(NAME, String.class).key("slow").run(() -> {
          executions.incrementAndGet();
          Thread.sleep(3_000);
          return "paid";
        }));
        Thread.sleep(200);
        int refused = 0;
        while (!first.isDone()) {
          try {
            idempotency.call(NAME, String.class).key("slow").run(() -> "again-" + executions.incrementAndGet());
          } catch (IdempotencyInProgressException e) {
            refused++;
          }
          Thread.sleep(100);
        }
        assertThat(first.get()).isEqualTo("paid");
        assertThat(refused).isPositive();
        assertThat(idempotency.call(NAME, String.class).key("slow").execute(() -> "later").value()).isEqualTo("paid");
        assertThat(executions).as("one execution, though the method outlived the timeout").hasValue(1);
      } finally {
        threads.shutdownNow();
        jdbi.useHandle(h -> h.execute("DROP TABLE " + table));
      }
    }
  }
}
