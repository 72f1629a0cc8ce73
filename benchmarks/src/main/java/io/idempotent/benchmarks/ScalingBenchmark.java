package io.idempotent.benchmarks;

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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Scenario 5a, scaling on PostgreSQL: first calls on distinct keys from 1, 2, 4, 8 and 16 threads,
 * as throughput, for the woven call and the hand-written floor on one pool of 16 connections.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
public class ScalingBenchmark {

  /** The implementations compared. */
  public enum Impl {
    idempotent, handWritten
  }

  /** Each thread's own keys. */
  @State(Scope.Thread)
  public static class ThreadKeys {
    final Keys keys = new Keys();
  }

  @Param
  public Impl impl;

  private final Charges charges = new Charges();
  private SqlRig rig;
  private HandWrittenJdbc handWritten;

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 16);
    Idempotency.install(IdempotencyConfig.builder().store(rig.storeBuilder().build()).build());
    handWritten = new HandWrittenJdbc(rig.pool, BenchDatabase.postgres, SqlRig.RECORDS);
  }

  @TearDown
  public void tearDown() {
    try {
      long rows = rig.count(SqlRig.RECORDS);
      if (rows != charges.executions.get()) {
        throw new IllegalStateException(impl + ": " + charges.executions.get() + " executions, " + rows + " records");
      }
    } finally {
      Idempotency.uninstall();
      rig.close();
    }
  }

  private Receipt call(ThreadKeys t) {
    String key = t.keys.fresh();
    return impl == Impl.idempotent
        ? charges.charge(key, 1999)
        : handWritten.call(Charges.CHARGE, key, 1999, () -> charges.plain(key, 1999));
  }

  @Benchmark
  @Threads(1)
  public Receipt threads01(ThreadKeys t) {
    return call(t);
  }

  @Benchmark
  @Threads(2)
  public Receipt threads02(ThreadKeys t) {
    return call(t);
  }

  @Benchmark
  @Threads(4)
  public Receipt threads04(ThreadKeys t) {
    return call(t);
  }

  @Benchmark
  @Threads(8)
  public Receipt threads08(ThreadKeys t) {
    return call(t);
  }

  @Benchmark
  @Threads(16)
  public Receipt threads16(ThreadKeys t) {
    return call(t);
  }
}
