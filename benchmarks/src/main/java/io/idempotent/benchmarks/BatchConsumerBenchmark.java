package io.idempotent.benchmarks;

import io.idempotent.BatchResult;
import io.idempotent.Settlement;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A batched message consumer on PostgreSQL (docs/MESSAGING.md, Batches): each invocation handles a batch of
 * {@value #BATCH} new messages in one transaction, each message inserting its order, and the time is given
 * per message. {@code unprotected} is that consumer without the library, the baseline; {@code batch} the
 * same with {@code Idempotency.batch} in joined mode (the batch's claims, orders and outcomes commit
 * together); {@code perMessage} protects each message on its own ({@code @Idempotent} in joined mode, one
 * transaction per message, as a consumer without batch claims runs); {@code camel} is the peer: Camel's JDBC
 * idempotent repository's {@code add} and {@code confirm} around each message of the batch.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class BatchConsumerBenchmark {

  static final int BATCH = 50;

  /** How the consumer is protected. */
  public enum Mode {
    unprotected, batch, perMessage, camel
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
    rig.createCamelTable();
    camel = new CamelPeer(rig.pool, "bench.consume");
    Idempotency.install(IdempotencyConfig.builder()
        .store(rig.joinedStoreBuilder().transactionMode(TransactionMode.JOINED).build()).build());
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
  @OperationsPerInvocation(BATCH)
  public int consume() {
    List<String> messages = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      messages.add(keys.fresh());
    }
    return switch (mode) {
      case unprotected -> rig.jdbi.inTransaction(h -> {
        for (String id : messages) {
          orders.placePlain(h, id, 1999);
        }
        return messages.size();
      });
      case batch -> rig.jdbi.inTransaction(h -> {
        int acked = 0;
        for (BatchResult<Receipt> r : Idempotency.global().batch("bench.consume", Receipt.class)
            .run(messages, id -> id, id -> orders.placePlain(h, id, 1999))) {
          acked += r.settlement() == Settlement.ACK ? 1 : 0;
        }
        return acked;
      });
      case perMessage -> {
        for (String id : messages) {
          rig.jdbi.inTransaction(h -> orders.place(h, id, 1999));
        }
        yield messages.size();
      }
      case camel -> rig.jdbi.inTransaction(h -> {
        for (String id : messages) {
          camel.first(id, () -> orders.placePlain(h, id, 1999));
        }
        return messages.size();
      });
    };
  }
}
