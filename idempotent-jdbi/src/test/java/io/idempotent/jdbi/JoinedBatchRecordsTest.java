package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.BatchResult;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.Settlement;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch in the caller's transaction on PostgreSQL, recorded when it completes ({@code PostgresBatchRecords};
 * docs/MESSAGING.md, Batches): its keys read, its outcomes inserted with its items' writes, one row written per
 * message; a key written by another transaction in between rolls the batch back, and its redelivery replays it.
 */
class JoinedBatchRecordsTest {

  private static final String NAME = "orders.record";
  private static final TestDatabase DB = TestDatabase.POSTGRES;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger runs = new AtomicInteger();

  private static Jdbi prepare() {
    DB.requireReachable();
    Jdbi jdbi = DB.jdbi();
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS test_batch_records (order_id VARCHAR(100))"));
    return jdbi;
  }

  private static JdbiIdempotencyStore joined() {
    return DB.storeBuilder().transactionMode(TransactionMode.JOINED).build();
  }

  private static Idempotency on(JdbiIdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  private List<String> orders(int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(run + "-" + i);
    }
    return ids;
  }

  private static String stored(String id) {
    return StoredKeys.compose(NAME, null, id, JdbiIdempotencyStore.KEY_RULES);
  }

  /** The batch in {@code h}'s transaction, each item writing its order; {@code during} runs in the first item. */
  private List<BatchResult<String>> consume(Handle h, Idempotency idempotency, List<String> ids, Runnable during) {
    return idempotency.batch(NAME, String.class).run(ids, id -> id, id -> {
      if (runs.incrementAndGet() == 1) {
        during.run();
      }
      h.execute("INSERT INTO test_batch_records (order_id) VALUES (?)", id);
      return "done " + id;
    });
  }

  private static long effects(Jdbi jdbi, String id) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM test_batch_records WHERE order_id = :id")
        .bind("id", id).mapTo(Long.class).one());
  }

  /** What this transaction did to the store's table so far: rows inserted, updated and deleted. */
  private static List<Long> tableChanges(Handle h) {
    return h.createQuery("SELECT pg_stat_get_xact_tuples_inserted(CAST(:t AS regclass)),"
        + " pg_stat_get_xact_tuples_updated(CAST(:t AS regclass)), pg_stat_get_xact_tuples_deleted(CAST(:t AS regclass))")
        .bind("t", "idempotency_record").map((rs, ctx) -> List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3))).one();
  }

  /** Runs {@code action} on another thread, in its own transactions, and waits until it has committed. */
  private static void elsewhere(Runnable action) {
    CompletableFuture.runAsync(action).orTimeout(30, TimeUnit.SECONDS).join();
  }

  @Test
  void aBatchOfFifty_isReadInOneStatement_andRecordedInOne_writingOneRowPerMessage() {
    Jdbi jdbi = prepare();
    Idempotency idempotency = on(joined());
    CountingDataSource counting = new CountingDataSource(DB.pool());
    Jdbi countedJdbi = Jdbi.create(counting.dataSource);
    Idempotency counted = on(JdbiIdempotencyStore.builder(countedJdbi)
        .dialect(SqlDialect.POSTGRESQL).transactionMode(TransactionMode.JOINED).build());
    List<String> ids = orders(50);

    List<Long> changes = countedJdbi.inTransaction(h -> {
      List<Long> before = tableChanges(h); // what the connection's earlier transactions reported or not yet
      counting.reset();
      List<BatchResult<String>> results = counted.batch(NAME, String.class).run(ids, id -> id, id -> "done " + id);
      assertThat(counting.reset()).as("round trips of the batch: its read and its insert").isEqualTo(2);
      assertThat(results).allSatisfy(r -> assertThat(r.settlement()).isEqualTo(Settlement.ACK));
      List<Long> after = tableChanges(h);
      return List.of(after.get(0) - before.get(0), after.get(1) - before.get(1), after.get(2) - before.get(2));
    });
    assertThat(changes).as("rows inserted, updated, deleted").containsExactly(50L, 0L, 0L);
    assertThat(joined().find(stored(ids.get(49))).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);

    List<BatchResult<String>> again = jdbi.inTransaction(h -> consume(h, idempotency, ids, () -> {}));
    assertThat(runs).as("the redelivered batch ran nothing").hasValue(0);
    assertThat(again).allSatisfy(r -> assertThat(r.replayed()).isTrue());
    assertThat(again.get(7).value()).isEqualTo("done " + run + "-7");
  }

  @ParameterizedTest
  @EnumSource(value = TransactionIsolationLevel.class, names = {"READ_COMMITTED", "REPEATABLE_READ", "SERIALIZABLE"})
  void aKeyRecordedElsewhereWhileTheBatchRuns_rollsTheBatchBack_andItsRedeliveryReplaysThatKey(
      TransactionIsolationLevel isolation) {
    Jdbi jdbi = prepare();
    Idempotency idempotency = on(joined());
    List<String> ids = orders(10);
    String taken = ids.get(6);

    assertThatThrownBy(() -> jdbi.useTransaction(isolation, h -> consume(h, idempotency, ids,
        () -> elsewhere(() -> jdbi.useTransaction(other -> { // a single call, in a transaction of its own
          other.execute("INSERT INTO test_batch_records (order_id) VALUES (?)", taken);
          idempotency.call(NAME, String.class).key(taken).payload(taken).run(() -> "elsewhere " + taken);
        })))))
        .isInstanceOf(IdempotencyRollbackRequiredException.class)
        .hasMessageContaining("must roll back");
    assertThat(runs).hasValue(10);
    assertThat(effects(jdbi, ids.get(0))).as("the batch's writes rolled back").isZero();
    assertThat(effects(jdbi, taken)).as("the other transaction's write").isEqualTo(1);

    runs.set(0);
    List<BatchResult<String>> redelivered = jdbi.inTransaction(isolation, h -> consume(h, idempotency, ids, () -> {}));
    assertThat(runs).as("every item but the one recorded elsewhere").hasValue(9);
    assertThat(redelivered.get(6).replayed()).isTrue();
    assertThat(redelivered.get(6).value()).isEqualTo("elsewhere " + taken);
    for (String id : ids) {
      assertThat(effects(jdbi, id)).as(id).isEqualTo(1);
    }
  }

  @Test
  void twoBatchesWithAKeyInCommon_runOneAfterTheOther_andTheSecondReplaysIt() throws Exception {
    Jdbi jdbi = prepare();
    Idempotency idempotency = on(joined());
    List<String> first = orders(5);
    List<String> second = List.of(first.get(3), run + "-other");
    AtomicInteger secondRuns = new AtomicInteger();
    CompletableFuture<List<BatchResult<String>>> other = new CompletableFuture<>();

    jdbi.useTransaction(h -> consume(h, idempotency, first, () -> {
      CompletableFuture.runAsync(() -> { // waits for this batch's lock on their common key
        try {
          other.complete(jdbi.inTransaction(o -> idempotency.batch(NAME, String.class).run(second, id -> id, id -> {
            secondRuns.incrementAndGet();
            o.execute("INSERT INTO test_batch_records (order_id) VALUES (?)", id);
            return "done " + id;
          })));
        } catch (RuntimeException e) {
          other.completeExceptionally(e);
        }
      });
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      assertThat(other).as("the second batch waits while this one is open").isNotDone();
    }));

    List<BatchResult<String>> results = other.get(30, TimeUnit.SECONDS);
    assertThat(results.get(0).replayed()).as("the key in common, replayed").isTrue();
    assertThat(results.get(0).value()).isEqualTo("done " + first.get(3));
    assertThat(secondRuns).as("only its own key ran").hasValue(1);
    for (String id : List.of(first.get(0), first.get(3), second.get(1))) {
      assertThat(effects(jdbi, id)).as(id).isEqualTo(1);
    }
  }

  @Test
  void anExpiredClaim_isTakenOverAndRecorded_unlessAnotherTransactionTakesItOverFirst() throws Exception {
    Jdbi jdbi = prepare();
    JdbiIdempotencyStore store = joined();
    Idempotency idempotency = on(store);
    List<String> ids = orders(3);
    for (String id : ids) { // a consumer that claimed these keys and died: leases of 1 ms
      assertThat(DB.storeBuilder().build().claim(stored(id), "", "dead-consumer", Duration.ofMillis(1)).claimed())
          .isTrue();
    }
    Thread.sleep(50);

    String second = ids.get(1);
    assertThatThrownBy(() -> jdbi.useTransaction(h -> consume(h, idempotency, ids,
        () -> elsewhere(() -> assertThat(DB.storeBuilder().build()
            .claim(stored(second), "", "another-consumer", Duration.ofMillis(300)).claimed()).isTrue()))))
        .isInstanceOf(IdempotencyRollbackRequiredException.class);
    assertThat(effects(jdbi, ids.get(0))).isZero();
    Thread.sleep(400); // the other consumer's lease runs out too

    runs.set(0);
    List<BatchResult<String>> taken = jdbi.inTransaction(h -> consume(h, idempotency, ids, () -> {}));
    assertThat(runs).hasValue(3);
    assertThat(taken).allSatisfy(r -> assertThat(r.settlement()).isEqualTo(Settlement.ACK));
    for (String id : ids) {
      assertThat(effects(jdbi, id)).as(id).isEqualTo(1);
      assertThat(store.find(stored(id)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }
  }
}
