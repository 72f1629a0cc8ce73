package io.idempotent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL store under Spring-managed transactions, with real commits and rollbacks: a transactional call's
 * claim and outcome are written in the caller's transaction, so they commit or roll back with the method's
 * own writes, exactly once in the database. Undeclared calls in the two modes that join the caller, and
 * calls declared {@link Effects#TRANSACTIONAL} in every mode; then what undeclared and external calls do
 * inside a transaction in the modes that do not join.
 */
class SpringTransactionsTest {

  @TempDir
  Path dir;

  private HikariDataSource pool;
  private JdbiIdempotencyStore store;
  private Idempotency idempotency;
  private JdbcTemplate jdbc;
  private TransactionTemplate tx;
  private TransactionTemplate requiresNew;
  private String orders;
  private String table;

  private Effects effects = Effects.UNDECLARED;

  /**
   * Each database, with each way a call is transactional: undeclared in a mode that joins the caller's
   * transaction, or declared in any mode.
   */
  static Stream<Arguments> databasesAndModes() {
    return Stream.of(SpringDatabase.values()).flatMap(d -> Stream.concat(
        Stream.of(TransactionMode.JOINED, TransactionMode.JOINED_TRANSACTION_SCOPED)
            .map(m -> Arguments.of(d, m, Effects.UNDECLARED)),
        Stream.of(TransactionMode.values()).map(m -> Arguments.of(d, m, Effects.TRANSACTIONAL))));
  }

  /** Each database with each mode that does not join the caller's transaction by itself. */
  static Stream<Arguments> databasesAndOwnModes() {
    return Stream.of(SpringDatabase.values()).flatMap(d -> Stream.of(TransactionMode.INDEPENDENT,
        TransactionMode.TRANSACTION_SCOPED).map(m -> Arguments.of(d, m)));
  }

  private void start(SpringDatabase database, TransactionMode mode, UnaryOperator<JdbiIdempotencyStore.Builder> options) {
    pool = database.open(dir);
    table = SpringDatabase.uniqueName("idem");
    store = options.apply(JdbiIdempotencyStore.builder(pool)
        .table(table)
        .createSchema(true)
        .callerTransactions(SpringTransactions.on(pool))
        .transactionMode(mode)).build();
    assertThat(store.transactionMode()).isEqualTo(mode);
    idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    jdbc = new JdbcTemplate(pool);
    orders = SpringDatabase.uniqueName("orders");
    jdbc.execute("CREATE TABLE " + orders + " (id VARCHAR(64) PRIMARY KEY)");
    DataSourceTransactionManager manager = new DataSourceTransactionManager(pool);
    tx = new TransactionTemplate(manager);
    requiresNew = new TransactionTemplate(manager);
    requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
  }

  @AfterEach
  void stop() {
    if (jdbc != null) {
      jdbc.execute("DROP TABLE " + orders);
      jdbc.execute("DROP TABLE " + table);
    }
    if (store != null) {
      store.close();
    }
    if (pool != null) {
      pool.close();
    }
  }

  /** The idempotent call: inserts one order row, in whatever transaction the calling thread has. */
  private CallResult<String> placeOrder(String key) {
    return idempotency.call("orders.place", String.class).key(key).effects(effects).execute(() -> {
      jdbc.update("INSERT INTO " + orders + " (id) VALUES (?)", UUID.randomUUID().toString());
      return "order for " + key;
    });
  }

  private int rows() {
    return jdbc.queryForObject("SELECT COUNT(*) FROM " + orders, Integer.class);
  }

  /** The state of {@code key}'s record as the database has it, or null when there is none. */
  private RecordState state(String key) {
    return jdbc.query("SELECT state FROM " + table + " WHERE idempotency_key LIKE ?",
        rs -> rs.next() ? RecordState.valueOf(rs.getString(1)) : null, "%" + key);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void theOutcomeCommitsWithTheMethodsWrites_andARetryReplays(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();

    CallResult<String> first = tx.execute(s -> placeOrder(key));
    CallResult<String> retry = tx.execute(s -> placeOrder(key));

    assertThat(first.outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(retry.outcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(retry.value()).isEqualTo(first.value());
    assertThat(rows()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void aRollbackAfterTheMethodReturned_leavesNeitherRowNorRecord_andTheRetryRuns(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();

    assertThatThrownBy(() -> tx.execute(s -> {
      placeOrder(key);
      throw new IllegalStateException("the caller fails after the call returned");
    })).hasMessageContaining("after the call returned");

    assertThat(rows()).isZero();
    assertThat(state(key)).isNull(); // released once the transaction had rolled back
    CallResult<String> retry = tx.execute(s -> placeOrder(key));
    assertThat(retry.outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(rows()).isEqualTo(1);
    assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void aCallInARequiresNewTransaction_commitsWithIt_whateverTheOuterOneDoes(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();

    assertThatThrownBy(() -> tx.execute(outer -> {
      requiresNew.execute(inner -> placeOrder(key));
      throw new IllegalStateException("the outer transaction fails");
    })).hasMessageContaining("outer");

    assertThat(rows()).isEqualTo(1);
    assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
    assertThat(tx.execute(s -> placeOrder(key)).outcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(rows()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void aCallInTheOuterTransaction_rollsBackWithIt_thoughAnInnerRequiresNewCommitted(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();
    String other = UUID.randomUUID().toString();

    assertThatThrownBy(() -> tx.execute(outer -> {
      placeOrder(key);
      requiresNew.execute(inner -> placeOrder(other)); // suspends the outer transaction, commits on its own
      throw new IllegalStateException("the outer transaction fails");
    })).hasMessageContaining("outer");

    assertThat(rows()).isEqualTo(1); // the inner call's row only
    assertThat(state(other)).isEqualTo(RecordState.COMPLETED);
    assertThat(state(key)).isNull();
    assertThat(tx.execute(s -> placeOrder(key)).outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(rows()).isEqualTo(2);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void withoutATransaction_theCallIsRefusedBeforeItsMethodRuns(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();

    assertThatThrownBy(() -> placeOrder(key))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("Spring-managed transaction").hasMessageContaining("did not run");

    assertThat(rows()).isZero();
    assertThat(state(key)).isNull(); // the claim was released at once
    assertThat(tx.execute(s -> placeOrder(key)).outcome()).isEqualTo(CallOutcome.EXECUTED);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void withoutATransaction_whenAllowed_theOutcomeIsRecordedOnItsOwn(SpringDatabase database, TransactionMode mode, Effects declared) {
    start(database, mode, b -> b.requireTransaction(false));
    effects = declared;
    String key = UUID.randomUUID().toString();

    assertThat(placeOrder(key).outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(placeOrder(key).outcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(rows()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("databasesAndModes")
  void aDuplicateWhileTheFirstTransactionIsStillOpen_isRefusedAsInProgress(SpringDatabase database, TransactionMode mode, Effects declared)
      throws Exception {
    start(database, mode, b -> b);
    effects = declared;
    String key = UUID.randomUUID().toString();
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);

    CompletableFuture<CallResult<String>> first = CompletableFuture.supplyAsync(() -> tx.execute(s -> {
      CallResult<String> r = placeOrder(key);
      called.countDown();
      await(commit);
      return r;
    }));
    assertThat(called.await(30, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(state(key)).as("the claim waits, uncommitted, in the open transaction with the outcome")
          .isNull();
      // yet the key is taken
      assertThatThrownBy(() -> tx.execute(s -> placeOrder(key))).isInstanceOf(IdempotencyInProgressException.class);
    } finally {
      commit.countDown();
    }
    assertThat(first.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(tx.execute(s -> placeOrder(key)).outcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(rows()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("databasesAndOwnModes")
  void anUndeclaredCallInsideATransaction_inAModeThatDoesNotJoin_isRefused_namingBothChoices(
      SpringDatabase database, TransactionMode mode) {
    start(database, mode, b -> b);
    String key = UUID.randomUUID().toString();

    assertThatThrownBy(() -> tx.execute(s -> placeOrder(key)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("Spring-managed transaction").hasMessageContaining("Effects.TRANSACTIONAL")
        .hasMessageContaining("Effects.EXTERNAL").hasMessageContaining("did not run");
    assertThat(rows()).isZero();
    assertThat(state(key)).isNull();
    assertThat(placeOrder(key).outcome()).as("outside a transaction it is recorded on its own")
        .isEqualTo(CallOutcome.EXECUTED);
  }

  @ParameterizedTest
  @MethodSource("databasesAndOwnModes")
  void anExternalCallInsideATransaction_isRecordedOnItsOwn_andReplayedAfterTheTransactionRolledBack(
      SpringDatabase database, TransactionMode mode) {
    start(database, mode, b -> b);
    effects = Effects.EXTERNAL;
    String key = UUID.randomUUID().toString();

    assertThatThrownBy(() -> tx.execute(s -> {
      placeOrder(key);
      throw new IllegalStateException("the caller fails after the call returned");
    })).hasMessageContaining("after the call returned");

    assertThat(state(key)).as("its record survived the rollback").isEqualTo(RecordState.COMPLETED);
    assertThat(tx.execute(s -> placeOrder(key)).outcome()).isEqualTo(CallOutcome.REPLAYED);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
