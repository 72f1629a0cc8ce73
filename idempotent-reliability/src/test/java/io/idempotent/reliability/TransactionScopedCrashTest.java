package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Transaction-scoped claims after a crash mid-method. The claim row (and, joined, the method's writes) sits
 * uncommitted in a transaction until the outcome commits with it; when the application's JVM is killed with
 * SIGKILL, or the database server is crashed and restarted, that transaction is gone, and the retry runs at
 * once: no lease to wait out (the lease here is ten minutes), no stuck row, no duplicate write. Long: only
 * with {@code -Didempotent.longTests=true}.
 */
class TransactionScopedCrashTest {

  static final String NAME = "scoped.crash";
  /** No unique constraint, as the suite's ledgers: a second execution shows as a second row. */
  private static final String LEDGER = "rel_txscoped_ledger";
  private static final Duration LEASE = Duration.ofMinutes(10);

  static Stream<Arguments> serversAndModes() {
    return Database.servers().flatMap(db -> Stream.of(TransactionMode.TRANSACTION_SCOPED,
        TransactionMode.JOINED_TRANSACTION_SCOPED).map(mode -> Arguments.of(db, mode)));
  }

  @ParameterizedTest
  @MethodSource("serversAndModes")
  void jvmKilledMidMethod_leavesNothingBehind_andTheRetryRunsAtOnce(Database db, TransactionMode mode)
      throws Exception {
    LongTests.require();
    db.requireReachable();
    try (HikariDataSource pool = db.newPool(4, "scoped-crash-survivor")) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE).transactionMode(mode)
          .createSchema(true).build();
      jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + LEDGER
          + " (id VARCHAR(100) NOT NULL, writer VARCHAR(20) NOT NULL)"));
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).defaultLease(LEASE).build());
      String key = "crash-" + UUID.randomUUID();

      Process child = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
          System.getProperty("java.class.path"), ScopedCrashChild.class.getName(), db.url, db.user, db.password,
          Database.TABLE, mode.name(), LEDGER, key)).redirectErrorStream(true).start();
      long killedAt;
      try {
        awaitHolding(child);
        // while the child runs the method, its claim is found without waiting for the row lock
        assertThatThrownBy(() -> jdbi.useTransaction(h -> call(idempotency, h, key, mode)))
            .isInstanceOf(IdempotencyInProgressException.class);
      } finally {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(30, TimeUnit.SECONDS);
        killedAt = System.nanoTime();
      }

      CallResult<String> retried = null;
      long deadline = killedAt + TimeUnit.SECONDS.toNanos(20);
      while (retried == null) {
        try {
          retried = jdbi.inTransaction(h -> call(idempotency, h, key, mode));
        } catch (IdempotencyInProgressException e) {
          // the server has not noticed the dead connection yet
          assertThat(System.nanoTime() - deadline).as("the retry runs long before the lease").isNegative();
          Thread.sleep(50);
        }
      }
      assertThat(retried.outcome()).isEqualTo(CallOutcome.EXECUTED);
      assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("no lease was waited out")
          .isLessThan(Duration.ofSeconds(20));
      List<String> writers = jdbi.withHandle(h -> h.createQuery("SELECT writer FROM " + LEDGER + " WHERE id = :id")
          .bind("id", key).mapTo(String.class).list());
      assertThat(writers).as("the dead process's uncommitted write is gone; the retry's is there once")
          .containsExactly("survivor");
      assertThat(jdbi.inTransaction(h -> call(idempotency, h, key, mode)).replayed()).isTrue();
    }
  }

  @Test
  void postgresCrashedAndRestartedMidMethod_leavesNothingBehind_andTheRetryRunsAtOnce() throws Exception {
    LongTests.require();
    try (ScratchPostgres pg = ScratchPostgres.start(); HikariDataSource pool = pg.pool("scoped-restart")) {
      crashedAndRestartedMidMethod(pool, () -> {
        pg.crash();
        pg.startServer(); // crash recovery: the open transaction never committed
      });
    }
  }

  @Test
  void mariaDbCrashedAndRestartedMidMethod_leavesNothingBehind_andTheRetryRunsAtOnce() throws Exception {
    LongTests.require();
    try (ScratchMariaDb db = ScratchMariaDb.start(); HikariDataSource pool = db.pool("scoped-restart")) {
      crashedAndRestartedMidMethod(pool, () -> {
        db.crash();
        db.startServer();
      });
    }
  }

  private interface Restart {
    void run() throws Exception;
  }

  private static void crashedAndRestartedMidMethod(HikariDataSource pool, Restart crashAndRestart) throws Exception {
    Jdbi jdbi = Jdbi.create(pool);
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
        .transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED).createSchema(true).build();
    jdbi.useHandle(h -> h.execute("CREATE TABLE " + LEDGER + " (id VARCHAR(100) NOT NULL, writer VARCHAR(20) NOT NULL)"));
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).defaultLease(LEASE).build());
    String key = "restart-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = thread.submit(() -> jdbi.inTransaction(h -> idempotency.call(NAME, String.class)
          .key(key).run(() -> {
            h.execute("INSERT INTO " + LEDGER + " (id, writer) VALUES (?, 'first')", key);
            running.countDown();
            resume.await();
            return "first";
          })));
      assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
      crashAndRestart.run();
      resume.countDown();
      assertThatThrownBy(() -> first.get(60, TimeUnit.SECONDS)).as("the first call's transaction is lost")
          .isInstanceOf(java.util.concurrent.ExecutionException.class);
    } finally {
      resume.countDown();
      thread.shutdownNow();
    }
    long restartedAt = System.nanoTime();
    CallResult<String> retried = null;
    while (retried == null) {
      try {
        retried = jdbi.inTransaction(h -> call(idempotency, h, key, TransactionMode.JOINED_TRANSACTION_SCOPED));
      } catch (RuntimeException e) {
        // the pool may hand out a connection that died with the server once
        assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).as("the retry runs long before the lease")
            .isLessThan(Duration.ofSeconds(30));
        Thread.sleep(100);
      }
    }
    assertThat(retried.outcome()).isEqualTo(CallOutcome.EXECUTED);
    List<String> writers = jdbi.withHandle(h -> h.createQuery("SELECT writer FROM " + LEDGER + " WHERE id = :id")
        .bind("id", key).mapTo(String.class).list());
    assertThat(writers).as("the first call's write died with its claim").containsExactly("survivor");
  }

  private static CallResult<String> call(Idempotency idempotency, org.jdbi.v3.core.Handle h, String key,
      TransactionMode mode) {
    // as the child declares it: joined, the ledger row, claim and outcome share the caller's transaction;
    // transaction-scoped, the claim is the store's own transaction's, the caller's holds only the row
    Effects effects = mode == TransactionMode.JOINED_TRANSACTION_SCOPED ? Effects.TRANSACTIONAL : Effects.EXTERNAL;
    return idempotency.call(NAME, String.class).key(key).effects(effects).execute(() -> {
      h.execute("INSERT INTO " + LEDGER + " (id, writer) VALUES (?, 'survivor')", key);
      return "survivor";
    });
  }

  private static void awaitHolding(Process child) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      Future<String> line = reader.submit(() -> {
        StringBuilder seen = new StringBuilder();
        for (String l; (l = out.readLine()) != null; ) {
          if (l.equals("HOLDING")) {
            return l;
          }
          seen.append(l).append('\n');
        }
        throw new IllegalStateException("The child process ended without holding its claim:\n" + seen);
      });
      line.get(60, TimeUnit.SECONDS);
    } finally {
      reader.shutdownNow();
    }
  }
}
