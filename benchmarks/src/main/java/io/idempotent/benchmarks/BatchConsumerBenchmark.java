package io.idempotent.benchmarks;

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
 * idempotent repository's {@code add} and {@code confirm} around each message of the batch. The consumers are
 * {@link BatchConsumers}; {@link BatchCosts} counts what each sends and writes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class BatchConsumerBenchmark {

  static final int BATCH = 50;

  @Param
  public BatchConsumers.Mode mode;

  private final Keys keys = new Keys();
  private SqlRig rig;
  private BatchConsumers consumers;

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 4);
    consumers = new BatchConsumers(rig);
  }

  @TearDown
  public void tearDown() {
    try {
      rig.requireOneOrderPerExecution(mode, consumers.orders.executions.get());
    } finally {
      consumers.close();
      rig.close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int consume() {
    return consumers.consume(mode, BatchConsumers.freshBatch(keys, BATCH));
  }
}
