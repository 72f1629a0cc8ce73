package io.idempotent.benchmarks;

import io.idempotent.jdbi.JdbiIdempotencyStore;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Scenario 2, SQL: the woven {@code @Idempotent} call on the JDBI table store, the hand-written JDBC
 * floor with the same statements, the minimal two-commit floor ({@link MinimalFloor}), and Camel's {@code JdbcMessageIdRepository}, on H2 file (the embedded
 * default), H2 in memory and PostgreSQL, for a first call and a duplicate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class SqlBenchmark {

  /** The implementations compared. */
  public enum Impl {
    idempotent, handWritten, minimalFloor, camel,
    /** {@code @Idempotent} on the table store in {@link TransactionMode#TRANSACTION_SCOPED} mode. */
    transactionScoped
  }

  @Param
  public BenchDatabase db;

  @Param
  public Impl impl;

  private final Charges charges = new Charges();
  private final Keys keys = new Keys();
  private SqlRig rig;
  private HandWrittenJdbc handWritten;
  private MinimalFloor minimalFloor;
  private CamelPeer camel;
  private boolean replayRun;
  private long executionsAfterSetup;

  @Setup
  public void setUp(BenchmarkParams params) {
    rig = new SqlRig(db, 4);
    JdbiIdempotencyStore store = rig.storeBuilder()
        .transactionMode(impl == Impl.transactionScoped ? TransactionMode.TRANSACTION_SCOPED : TransactionMode.INDEPENDENT)
        .build();
    Idempotency.install(IdempotencyConfig.builder().store(store).build());
    handWritten = new HandWrittenJdbc(rig.pool, db, SqlRig.RECORDS);
    rig.createCamelTable();
    rig.createFloorTable();
    minimalFloor = new MinimalFloor(rig.pool, db, SqlRig.FLOOR);
    camel = new CamelPeer(rig.pool, Charges.CHARGE);
    for (String key : keys.replayKeys()) {
      first(key);
    }
    replayRun = params.getBenchmark().endsWith(".replay");
    executionsAfterSetup = charges.executions.get();
  }

  @TearDown
  public void tearDown() {
    try {
      if (replayRun && charges.executions.get() != executionsAfterSetup) {
        throw new IllegalStateException(impl + " on " + db + ": a duplicate ran the method");
      }
    } finally {
      Idempotency.uninstall();
      camel.close();
      rig.close();
    }
  }

  private Object first(String key) {
    return switch (impl) {
      case idempotent, transactionScoped -> charges.charge(key, 1999);
      case handWritten -> handWritten.call(Charges.CHARGE, key, 1999, () -> charges.plain(key, 1999));
      case minimalFloor -> minimalFloor.call(Charges.CHARGE, key, 1999, () -> charges.plain(key, 1999));
      case camel -> camel.first(key, () -> charges.plain(key, 1999));
    };
  }

  @Benchmark
  public Object firstCall() {
    return first(keys.fresh());
  }

  /** A duplicate of a completed key: the recorded result for us and the floor, {@code contains} for Camel. */
  @Benchmark
  public Object replay() {
    String key = keys.replay();
    return switch (impl) {
      case idempotent, transactionScoped -> charges.charge(key, 1999);
      case handWritten -> handWritten.call(Charges.CHARGE, key, 1999, () -> charges.plain(key, 1999));
      case minimalFloor -> minimalFloor.call(Charges.CHARGE, key, 1999, () -> charges.plain(key, 1999));
      case camel -> camel.duplicate(key);
    };
  }
}
