package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.internal.StoredKeys;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Caffeine in front of a table store that joins the caller's transaction: an outcome is copied near only
 * once the caller's transaction has committed it, and never when it rolls back.
 */
class LayeredJoinedModeTest {

  private static final String NAME = "layered.orders";

  private final AtomicInteger runs = new AtomicInteger();
  private final CaffeineIdempotencyStore near = CaffeineIdempotencyStore.builder().build();
  private Jdbi jdbi;
  private JdbiIdempotencyStore far;
  private Idempotency idempotency;

  private void instance(TestDatabase db) {
    db.requireReachable();
    jdbi = db.jdbi(); // the application's Jdbi: joined mode binds to the thread's handle on it
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS layered_orders (id VARCHAR(100) PRIMARY KEY)"));
    far = db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(near, far)).build());
  }

  private String createOrder(Handle h, String order) {
    return idempotency.call(NAME, String.class).key(order).run(() -> {
      runs.incrementAndGet();
      h.execute("INSERT INTO layered_orders (id) VALUES (?)", order);
      return "created " + order;
    });
  }

  private static String storedKey(String order) {
    return StoredKeys.compose(NAME, null, order, JdbiIdempotencyStore.KEY_RULES);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void rollback_neverEntersTheNearCache_andTheRetryRunsAgain(TestDatabase db) {
    instance(db);
    String order = "order-" + UUID.randomUUID();

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      createOrder(h, order);
      assertThat(near.find(storedKey(order))).as("not near before the commit").isEmpty();
      throw new IllegalStateException("forced rollback");
    })).hasMessage("forced rollback");

    assertThat(near.find(storedKey(order))).as("not near after the rollback").isEmpty();
    assertThat(far.find(storedKey(order))).as("the claim was released").isEmpty();

    String again = jdbi.inTransaction(h -> createOrder(h, order));
    assertThat(again).isEqualTo("created " + order);
    assertThat(runs).as("the retry ran again").hasValue(2);
    assertThat(near.find(storedKey(order))).hasValueSatisfying(r ->
        assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void commit_entersTheNearCacheAfterTheCommit_notBefore(TestDatabase db) {
    instance(db);
    String order = "order-" + UUID.randomUUID();

    jdbi.useTransaction(h -> {
      assertThat(createOrder(h, order)).isEqualTo("created " + order);
      assertThat(near.find(storedKey(order))).as("not near before the commit").isEmpty();
    });

    assertThat(near.find(storedKey(order))).as("near after the commit").hasValueSatisfying(r -> {
      assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
      assertThat(r.outcome().reference()).isEqualTo("created " + order);
    });
    String again = jdbi.inTransaction(h -> createOrder(h, order));
    assertThat(again).isEqualTo("created " + order);
    assertThat(runs).as("the replay did not run").hasValue(1);
  }
}
