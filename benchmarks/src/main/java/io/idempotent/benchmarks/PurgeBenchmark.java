package io.idempotent.benchmarks;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
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
 * Scenario 6, purge on PostgreSQL: a table holding {@code expiredRows} (1,000,000) expired rows. Group
 * {@code quiet}: one thread makes first calls. Group {@code purging}: the same, while a second thread
 * purges expired rows in batches of {@value #BATCH} ({@code purgeExpired}, one short statement each).
 * The purge rate is {@value #BATCH} rows per {@code purgeBatch} time; the claim latency during the purge
 * is compared with the quiet one. Expired rows are topped up to {@code expiredRows} before each
 * iteration, outside the measurement, so the purge never runs dry.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class PurgeBenchmark {

  static final int BATCH = 1_000;

  /** Expired rows in the table at the start of every iteration (fewer only for smoke runs). */
  @Param("1000000")
  public int expiredRows;

  /** Each claiming thread's own keys. */
  @State(Scope.Thread)
  public static class ThreadKeys {
    final Keys keys = new Keys();
  }

  private final Charges charges = new Charges();
  private SqlRig rig;
  private JdbiIdempotencyStore store;
  private long filled;
  private final java.util.concurrent.atomic.AtomicLong shortBatches = new java.util.concurrent.atomic.AtomicLong();

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 4);
    store = rig.storeBuilder().build();
    Idempotency.install(IdempotencyConfig.builder().store(store).build());
  }

  /** Tops the expired rows up to {@link #expiredRows} (not measured). */
  @Setup(Level.Iteration)
  public void refill() {
    try (Handle h = rig.jdbi.open()) {
      long expired = h.createQuery("SELECT COUNT(*) FROM " + SqlRig.RECORDS + " WHERE expires_at < now()")
          .mapTo(Long.class).one();
      long missing = expiredRows - expired;
      if (missing > 0) {
        h.createUpdate("INSERT INTO " + SqlRig.RECORDS + " (idempotency_key, fingerprint, state, taken_over,"
                + " expires_at, purge_after, outcome_kind, result_json)"
                + " SELECT 'expired-' || (:from + g), 'fp', 'COMPLETED', FALSE,"
                + " now() - INTERVAL '1 hour' - g * INTERVAL '1 millisecond',"
                + " now() - INTERVAL '1 hour' - g * INTERVAL '1 millisecond', 'VALUE',"
                + " '{\"orderId\":\"x\",\"cents\":1999,\"status\":\"CHARGED\"}' FROM generate_series(1, :n) AS g")
            .bind("from", filled).bind("n", missing).execute();
        filled += missing;
        h.execute("ANALYZE " + SqlRig.RECORDS);
      }
    }
  }

  @TearDown
  public void tearDown() {
    try {
      System.out.printf("%n[purge] %d expired rows inserted in all; %d purge batches came back short%n", filled,
          shortBatches.get());
    } finally {
      Idempotency.uninstall();
      rig.close();
    }
  }

  @Benchmark
  @Group("quiet")
  @GroupThreads(1)
  public Receipt claimQuiet(ThreadKeys t) {
    return charges.charge(t.keys.fresh(), 1999);
  }

  @Benchmark
  @Group("purging")
  @GroupThreads(1)
  public Receipt claimDuringPurge(ThreadKeys t) {
    return charges.charge(t.keys.fresh(), 1999);
  }

  @Benchmark
  @Group("purging")
  @GroupThreads(1)
  public int purgeBatch() {
    int n = store.purgeExpired(BATCH);
    if (n != BATCH) {
      shortBatches.incrementAndGet(); // the rate would be wrong: reported at teardown
    }
    return n;
  }
}
