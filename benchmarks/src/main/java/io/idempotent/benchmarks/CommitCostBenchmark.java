package io.idempotent.benchmarks;

import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Scenario 3, commit cost on PostgreSQL: a first call of a business method that inserts an order in
 * its own transaction. Independent mode commits three times (claim, completion, business
 * transaction); joined mode twice (the completion commits with the order); a relaxed claim does not
 * wait for its WAL flush. {@code businessOnly} is the transaction with no idempotency, for reference;
 * {@code camel} is the peer around the same transaction ({@code add} commits on its own, then the
 * order commits). {@code transactionScoped} keeps the claim uncommitted in a transaction of the store's own
 * that commits with the outcome (two commits with the order's); {@code joinedTransactionScoped} writes the
 * claim and the outcome in the order's transaction (one commit).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class CommitCostBenchmark {

  /** How the store commits. */
  public enum Mode {
    businessOnly, independent, joined, relaxed, relaxedJoined, camel, transactionScoped, joinedTransactionScoped
  }

  @Param
  public Mode mode;

  private final Orders orders = new Orders();
  private final Keys keys = new Keys();
  private SqlRig rig;
  private CamelPeer camel;

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 4);
    rig.createOrdersTable();
    boolean joined = mode == Mode.joined || mode == Mode.relaxedJoined || mode == Mode.joinedTransactionScoped;
    boolean relaxed = mode == Mode.relaxed || mode == Mode.relaxedJoined;
    rig.createCamelTable();
    camel = new CamelPeer(rig.pool, "bench.place");
    TransactionMode transactionMode = switch (mode) {
      case joined, relaxedJoined -> TransactionMode.JOINED;
      case transactionScoped -> TransactionMode.TRANSACTION_SCOPED;
      case joinedTransactionScoped -> TransactionMode.JOINED_TRANSACTION_SCOPED;
      default -> TransactionMode.INDEPENDENT;
    };
    Idempotency.install(IdempotencyConfig.builder().store((joined ? rig.joinedStoreBuilder() : rig.storeBuilder())
        .transactionMode(transactionMode)
        .relaxedClaimDurability(relaxed)
        .build()).build());
  }

  @TearDown
  public void tearDown() {
    try {
      rig.requireOneOrderPerExecution(mode, orders.executions.get());
    } finally {
      Idempotency.uninstall();
      camel.close();
      rig.close();
    }
  }

  @Benchmark
  public Receipt firstCall() {
    String key = keys.fresh();
    return rig.jdbi.inTransaction(h -> switch (mode) {
      case businessOnly -> orders.placePlain(h, key, 1999);
      case camel -> camel.first(key, () -> orders.placePlain(h, key, 1999));
      case independent, relaxed, transactionScoped -> orders.placeOnItsOwn(h, key, 1999);
      default -> orders.place(h, key, 1999); // the joined modes take it as transactional
    });
  }
}
