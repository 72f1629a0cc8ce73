package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionException;
import org.junit.jupiter.api.Test;

/**
 * A joined transaction whose COMMIT itself fails (a deferred constraint, checked only then) has not
 * committed the outcome: the claim must be released, so that a retry runs at once instead of waiting for
 * the lease. PostgreSQL only: MariaDB checks every constraint at once.
 */
class JoinedCommitFailureTest {

  private static final String NAME = "orders.deferred";

  /** PostgreSQL's Jdbi, with a table whose unique reference is checked only at COMMIT. */
  private static Jdbi jdbiWithDeferredOrders() {
    TestDatabase db = TestDatabase.POSTGRES;
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS test_deferred_orders (id text PRIMARY KEY,"
        + " reference text NOT NULL, CONSTRAINT test_deferred_orders_reference UNIQUE (reference)"
        + " DEFERRABLE INITIALLY DEFERRED)"));
    return jdbi;
  }

  @Test
  void joined_commitFailingOnADeferredConstraint_releasesTheClaim_andARetryRunsAtOnce() {
    Jdbi jdbi = jdbiWithDeferredOrders();
    JdbiIdempotencyStore store = TestDatabase.POSTGRES.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    String order = "order-" + UUID.randomUUID();
    String storedKey = StoredKeys.compose(NAME, null, order, JdbiIdempotencyStore.KEY_RULES);
    AtomicInteger runs = new AtomicInteger();

    // two rows with one reference: accepted by each INSERT, refused at COMMIT
    assertThatThrownBy(() -> jdbi.useTransaction(h -> create(idempotency, h, order, runs, 2)))
        .isInstanceOf(TransactionException.class);
    assertThat(store.find(storedKey)).as("the failed commit released the claim").isEmpty();

    jdbi.useTransaction(h -> create(idempotency, h, order, runs, 1));
    assertThat(runs).hasValue(2);
    assertThat(store.find(storedKey).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void joined_commitFailingOnAHandleFromOpen_releasesTheClaim() {
    Jdbi jdbi = jdbiWithDeferredOrders();
    JdbiIdempotencyStore store = TestDatabase.POSTGRES.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    String order = "order-" + UUID.randomUUID();
    String storedKey = StoredKeys.compose(NAME, null, order, JdbiIdempotencyStore.KEY_RULES);
    AtomicInteger runs = new AtomicInteger();

    try (Handle h = jdbi.open()) {
      h.begin();
      create(idempotency, h, order, runs, 2);
      assertThatThrownBy(h::commit).isInstanceOf(TransactionException.class);
    }
    assertThat(store.find(storedKey)).as("the failed commit released the claim").isEmpty();
  }

  @Test
  void joined_commitFailing_thenTheHandleReused_releasesAtTheFailure_andRunsNoActionOfItInTheNextCommit() {
    Jdbi jdbi = jdbiWithDeferredOrders();
    JdbiIdempotencyStore store = TestDatabase.POSTGRES.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    LastCallClaim calls = new LastCallClaim(store);
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(calls).build());
    String failed = "order-" + UUID.randomUUID();
    String next = "order-" + UUID.randomUUID();
    String failedKey = StoredKeys.compose(NAME, null, failed, JdbiIdempotencyStore.KEY_RULES);
    AtomicInteger runs = new AtomicInteger();
    List<String> afterCommit = new CopyOnWriteArrayList<>();

    try (Handle h = jdbi.open()) {
      h.begin();
      create(idempotency, h, failed, runs, 2);
      calls.afterCommit(() -> afterCommit.add(failed)); // as a cache in front of the table would
      assertThatThrownBy(h::commit).isInstanceOf(TransactionException.class);
      assertThat(store.find(failedKey)).as("released at the failed commit, not at some later one").isEmpty();

      h.begin(); // the same handle, a new transaction
      create(idempotency, h, next, runs, 1);
      calls.afterCommit(() -> afterCommit.add(next));
      h.commit();
    }
    assertThat(afterCommit).as("only the committed transaction's actions ran").containsExactly(next);
    assertThat(store.find(failedKey)).isEmpty();
    assertThat(runs).hasValue(2);
  }

  private static void create(Idempotency idempotency, Handle h, String order, AtomicInteger runs, int rows) {
    idempotency.call(NAME, String.class).key(order).run(() -> {
      runs.incrementAndGet();
      for (int i = 0; i < rows; i++) {
        h.execute("INSERT INTO test_deferred_orders (id, reference) VALUES (?, ?)", order + "#" + i, order);
      }
      return "created";
    });
  }
}
