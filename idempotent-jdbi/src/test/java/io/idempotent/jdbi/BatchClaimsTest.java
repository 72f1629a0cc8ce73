package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.BatchResult;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.Settlement;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A consumer's batch on the table store (docs/MESSAGING.md, Batches): in a joined mode the batch's claims,
 * its business writes and its outcomes commit together in the consumer's transaction; effects are counted in
 * a table without a unique constraint, so an effect written twice would show.
 */
class BatchClaimsTest {

  private static final String NAME = "orders.consume";

  /** A message: its id is the key, its body the payload. */
  record Message(String id, String body) {}

  /** A final business outcome. */
  static final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Declined(String message) {
      super(message);
    }
  }

  private static Jdbi prepare(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS test_batch_effects (order_id VARCHAR(100))"));
    return jdbi;
  }

  private static Idempotency on(JdbiIdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  private static List<Message> orders(String run, int count) {
    List<Message> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(new Message(run + "-" + i, i % 10 == 7 ? "declined" : "order"));
    }
    return batch;
  }

  /** How many effects each order has, for the orders of {@code run}. */
  private static Map<String, Integer> effects(Jdbi jdbi, String run) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT order_id, COUNT(*) FROM test_batch_effects WHERE order_id LIKE :run"
          + " GROUP BY order_id").bind("run", run + "-%")
          .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2))).list().stream()
          .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
  }

  /** Handles a batch in one transaction of the consumer's, writing one effect per order that runs. */
  private static List<BatchResult<String>> consume(Jdbi jdbi, Idempotency idempotency, List<Message> batch,
      AtomicInteger runs) {
    return jdbi.inTransaction(h -> idempotency.batch(NAME, String.class).finalExceptions(Declined.class)
        .run(batch, Message::id, Message::body, m -> {
          runs.incrementAndGet();
          h.execute("INSERT INTO test_batch_effects (order_id) VALUES (?)", m.id());
          if (m.body().equals("declined")) {
            throw new Declined("declined " + m.id());
          }
          return "done " + m.id();
        }));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_aBatchsClaimsWritesAndOutcomes_commitTogether_andItsRedeliveryRunsNothing(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = on(store);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Message> batch = new ArrayList<>(orders(run, 50));
    batch.add(batch.get(3)); // delivered twice in the same batch
    AtomicInteger runs = new AtomicInteger();

    List<BatchResult<String>> first = consume(jdbi, idempotency, batch, runs);
    assertThat(runs).hasValue(50);
    assertThat(first.get(50).replayed()).isTrue();
    assertThat(first).filteredOn(r -> r.settlement() == Settlement.ACK).hasSize(46);
    assertThat(first).filteredOn(r -> r.settlement() == Settlement.REJECT).hasSize(5); // the declined ones
    assertThat(effects(jdbi, run)).hasSize(50).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
    assertThat(store.find(StoredKeys.compose(NAME, null, run + "-7", JdbiIdempotencyStore.KEY_RULES))
        .orElseThrow().outcome().kind()).isEqualTo(StoredOutcome.Kind.FAILURE);

    List<BatchResult<String>> again = consume(jdbi, idempotency, batch, runs);
    assertThat(runs).as("the redelivered batch ran nothing").hasValue(50);
    assertThat(again).allSatisfy(r -> assertThat(r.replayed()).isTrue());
    assertThat(again.get(0).value()).isEqualTo("done " + run + "-0");
    assertThat(again.get(7).failure()).isInstanceOf(Declined.class);
    assertThat(effects(jdbi, run)).hasSize(50).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_aBatchRolledBack_leavesNoClaim_andItsRedeliveryRunsEveryItem(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = on(store);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Message> batch = orders(run, 20);
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      consume(jdbi, idempotency, batch, runs);
      throw new IllegalStateException("the consumer failed before its commit");
    })).hasMessage("the consumer failed before its commit");
    assertThat(effects(jdbi, run)).isEmpty();
    assertThat(store.find(StoredKeys.compose(NAME, null, run + "-0", JdbiIdempotencyStore.KEY_RULES))).isEmpty();

    consume(jdbi, idempotency, batch, runs);
    assertThat(runs).hasValue(40);
    assertThat(effects(jdbi, run)).hasSize(20).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_anItemFailingWithAnExceptionThatIsNotFinal_rollsTheWholeBatchBack(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = on(store);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Message> batch = orders(run, 10);

    assertThatThrownBy(() -> jdbi.useTransaction(h -> idempotency.batch(NAME, String.class)
        .run(batch, Message::id, Message::body, m -> {
          h.execute("INSERT INTO test_batch_effects (order_id) VALUES (?)", m.id());
          if (m.id().endsWith("-4")) {
            throw new IllegalStateException("a transient failure after the item's write");
          }
          return "done";
        }))).isInstanceOf(IdempotencyRollbackRequiredException.class);
    assertThat(effects(jdbi, run)).as("the failed item's write rolled back with the batch").isEmpty();

    AtomicInteger runs = new AtomicInteger();
    consume(jdbi, idempotency, batch, runs);
    assertThat(runs).hasValue(10);
    assertThat(effects(jdbi, run)).hasSize(10).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void joined_batchesWithKeysInCommon_onFourThreads_writeEachEffectOnce(TestDatabase db) throws Exception {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
    Idempotency idempotency = on(store);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Message> all = orders(run, 200);
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger requeued = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> consumers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        consumers.add(pool.submit(() -> {
          List<Message> mine = new ArrayList<>(all);
          Collections.shuffle(mine, new java.util.Random(seed));
          List<Message> pending = new ArrayList<>();
          for (int from = 0; from < mine.size() || !pending.isEmpty(); from += 50) {
            List<Message> batch = new ArrayList<>(pending);
            pending.clear();
            batch.addAll(mine.subList(Math.min(from, mine.size()), Math.min(from + 50, mine.size())));
            try {
              for (BatchResult<String> r : consume(jdbi, idempotency, batch, runs)) {
                if (r.settlement() == Settlement.REQUEUE) {
                  pending.add(batch.get(r.index())); // in progress in another consumer: delivered again
                  requeued.incrementAndGet();
                }
              }
            } catch (IdempotencyStoreException e) {
              pending.addAll(batch); // the batch rolled back (a deadlock, a lock wait): delivered again
              requeued.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : consumers) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf("%s: 4 consumers, 800 deliveries of 200 orders, %d handler runs, %d requeued%n", db.name,
        runs.get(), requeued.get());
    assertThat(effects(jdbi, run)).hasSize(200).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void aBatchOfFifty_isClaimedAndCompletedInOneStatementEach_onPostgres(TestDatabase db) {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    CountingDataSource counting = new CountingDataSource(db.pool());
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(counting.dataSource))
        .dialect(SqlDialect.fromProductName(db.name).orElseThrow()).build();
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<BatchClaims.Claim> claims = new ArrayList<>();
    List<BatchClaims.Completion> completions = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      String key = StoredKeys.compose(NAME, null, run + "-" + i, JdbiIdempotencyStore.KEY_RULES);
      claims.add(new BatchClaims.Claim(key, "fp"));
      completions.add(new BatchClaims.Completion(key, StoredOutcome.valueJson("\"done\"")));
    }
    String owner = UUID.randomUUID().toString();
    counting.reset();
    assertThat(store.claimAll(claims, owner, Duration.ofMinutes(1))).allSatisfy(r -> assertThat(r.claimed()).isTrue());
    int claimTrips = counting.reset();
    assertThat(store.completeAll(completions, owner, Duration.ofMinutes(1))).containsOnly(true);
    int completeTrips = counting.reset();
    assertThat(store.find(claims.get(49).key()).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    System.out.printf("round trips on %s for a batch of 50: claim %d, complete %d%n", db.name, claimTrips,
        completeTrips);
    if (store.dialect() == SqlDialect.POSTGRESQL) {
      assertThat(claimTrips).isEqualTo(1);
      assertThat(completeTrips).isEqualTo(1);
    } else {
      assertThat(claimTrips).as("key by key").isGreaterThanOrEqualTo(50);
      assertThat(completeTrips).isEqualTo(50);
    }
  }
}
