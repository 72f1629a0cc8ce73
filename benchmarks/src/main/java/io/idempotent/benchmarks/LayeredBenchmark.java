package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
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
 * Scenario 4, layered: a replay answered by the near cache of a layered store (Caffeine in front of
 * PostgreSQL) against a replay answered by the PostgreSQL table store alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class LayeredBenchmark {

  /** Which store answers the replay. */
  public enum Store {
    nearHit, postgres
  }

  @Param
  public Store store;

  private final Charges charges = new Charges();
  private final Keys keys = new Keys();
  private SqlRig rig;
  private long executionsAfterSetup;

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 4);
    IdempotencyStore table = rig.storeBuilder().build();
    IdempotencyStore s = store == Store.nearHit
        ? new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), table)
        : table;
    Idempotency.install(IdempotencyConfig.builder().store(s).build());
    for (String key : keys.replayKeys()) {
      charges.charge(key, 1999);
    }
    executionsAfterSetup = charges.executions.get();
  }

  @TearDown
  public void tearDown() {
    try {
      if (charges.executions.get() != executionsAfterSetup) {
        throw new IllegalStateException(store + ": a replay ran the method");
      }
    } finally {
      Idempotency.uninstall();
      rig.close();
    }
  }

  @Benchmark
  public Receipt replay() {
    return charges.charge(keys.replay(), 1999);
  }
}
