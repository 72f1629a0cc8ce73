package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The joined-mode example of README.md, run as printed there on a woven service. */
class ReadmeJoinedExampleTest {

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  private static Jdbi prepare(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + Orders.TABLE + " (id VARCHAR(100) PRIMARY KEY)"));
    return jdbi;
  }

  private static int ordersWithId(Jdbi jdbi, String id) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + Orders.TABLE + " WHERE id = :id").bind("id", id)
          .mapTo(Integer.class).one();
    }
  }

  private static String storedKey(String orderId) {
    // the default name: declaring class, method and erased parameter types
    return StoredKeys.compose(Orders.class.getName() + ".create(Handle, String)", null, orderId,
        JdbiIdempotencyStore.KEY_RULES);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joinedExample_asPrinted_runsOnce_andTheRecordCommitsWithTheOrder(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    Orders orders = new Orders();
    String orderId = "order-" + UUID.randomUUID();

    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)      // the application's Jdbi
        .transactionMode(TransactionMode.JOINED).createSchema(true).build();
    Idempotency idempotency = Idempotency.install(IdempotencyConfig.builder().store(store).build());

    jdbi.useTransaction(h -> orders.create(h, orderId));   // @Idempotent(key = "#orderId") inside

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(idempotency.config().store("")).isSameAs(store);
    assertThat(ordersWithId(jdbi, orderId)).isEqualTo(1);
    assertThat(store.find(storedKey(orderId)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);

    // a retry arrives on another handle: the handle is left out of the fingerprint, so it replays
    jdbi.useTransaction(h -> orders.create(h, orderId));
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(orders.runs).hasValue(1);
    assertThat(ordersWithId(jdbi, orderId)).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joinedExample_rollbackAfterTheCall_leavesNeitherOrderNorRecord_andTheRetryRuns(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    Orders orders = new Orders();
    String orderId = "order-" + UUID.randomUUID();
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
        .transactionMode(TransactionMode.JOINED).createSchema(true).build();
    Idempotency.install(IdempotencyConfig.builder().store(store).build());

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      orders.create(h, orderId);
      throw new IllegalStateException("forced rollback");
    })).hasMessage("forced rollback");
    assertThat(ordersWithId(jdbi, orderId)).isZero();
    assertThat(store.find(storedKey(orderId))).isEmpty();

    jdbi.useTransaction(h -> orders.create(h, orderId));
    assertThat(orders.runs).hasValue(2);
    assertThat(ordersWithId(jdbi, orderId)).isEqualTo(1);
    assertThat(store.find(storedKey(orderId)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }
}
