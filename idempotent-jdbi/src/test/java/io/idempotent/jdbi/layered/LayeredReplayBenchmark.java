package io.idempotent.jdbi.layered;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What a replay costs through the engine ({@code Idempotency#call}): served from the near cache of the
 * layered store (the table behind it on PostgreSQL), from the table store alone on PostgreSQL (one claim
 * statement that finds the completed row), and from the Caffeine store alone as the in-memory baseline.
 * {@link #main} runs the three in one JMH run and prints the far-hit / near-hit ratio with its error.
 * PostgreSQL is found as the tests find it ({@code -Didempotent.test.postgres.url/user/password}).
 *
 * <p>Run: {@code mvn -B clean verify -pl idempotent-jdbi -am -DskipTests -Pbenchmark} (see the README).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class LayeredReplayBenchmark {

  /** The store a replay is served from. */
  public enum Source {
    /** The layered store's near cache (Caffeine), with the table on PostgreSQL behind it. */
    LAYERED_NEAR_HIT,
    /** The table store alone on PostgreSQL: what a near miss costs. */
    JDBI_POSTGRES,
    /** The Caffeine store alone: the in-memory baseline. */
    CAFFEINE
  }

  @Param
  public Source source;

  private HikariDataSource pool;
  private Idempotency idempotency;
  private String key;

  @Setup(Level.Trial)
  public void completeOneCall() {
    IdempotencyStore store = switch (source) {
      case CAFFEINE -> CaffeineIdempotencyStore.builder().build();
      case JDBI_POSTGRES -> table();
      case LAYERED_NEAR_HIT -> new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), table());
    };
    idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    key = "bench-" + UUID.randomUUID();
    String first = idempotency.call("bench", String.class).key(key).payload(key, 4200).ttl(Duration.ofHours(1))
        .run(() -> "receipt-42");
    if (!"receipt-42".equals(first) || !replay().equals(first)) {
      throw new IllegalStateException("the set-up call did not complete and replay");
    }
  }

  private JdbiIdempotencyStore table() {
    pool = TestDatabase.POSTGRES.newPool(2, "benchmark");
    return JdbiIdempotencyStore.builder(Jdbi.create(pool)).createSchema(true).build();
  }

  @TearDown(Level.Trial)
  public void close() {
    if (pool != null) {
      pool.close();
    }
  }

  @Benchmark
  public String replay() {
    return idempotency.call("bench", String.class).key(key).payload(key, 4200)
        .run(() -> {
          throw new IllegalStateException("a replay must not run the method");
        });
  }

  /** Runs the benchmark with JMH command-line options (e.g. {@code -f 2 -wi 5 -i 10 -w 1s -r 1s}) and prints the ratios. */
  public static void main(String[] args) throws Exception {
    Options options = new OptionsBuilder()
        .parent(new CommandLineOptions(args))
        .include(Pattern.quote(LayeredReplayBenchmark.class.getName()) + ".*")
        .build();
    Collection<RunResult> results = new Runner(options).run();
    Map<Source, Result<?>> scores = new EnumMap<>(Source.class);
    for (RunResult r : results) {
      scores.put(Source.valueOf(r.getParams().getParam("source")), r.getPrimaryResult());
    }
    System.out.println();
    ratio("far hit / near hit  (JDBI_POSTGRES / LAYERED_NEAR_HIT)", scores.get(Source.JDBI_POSTGRES),
        scores.get(Source.LAYERED_NEAR_HIT));
    ratio("near hit / baseline (LAYERED_NEAR_HIT / CAFFEINE)     ", scores.get(Source.LAYERED_NEAR_HIT),
        scores.get(Source.CAFFEINE));
  }

  /**
   * Prints a / b with its error, propagated to first order from the two scores' errors (JMH's 99.9%
   * confidence half-widths), taken as independent.
   */
  private static void ratio(String label, Result<?> a, Result<?> b) {
    if (a == null || b == null) {
      return;
    }
    double ratio = a.getScore() / b.getScore();
    double relA = a.getScoreError() / a.getScore();
    double relB = b.getScoreError() / b.getScore();
    double error = Double.isNaN(relA) || Double.isNaN(relB) ? Double.NaN : ratio * Math.sqrt(relA * relA + relB * relB);
    System.out.printf("%s: %.1f ± %.1f   (%.3f ± %.3f vs %.3f ± %.3f %s)%n", label, ratio, error,
        a.getScore(), a.getScoreError(), b.getScore(), b.getScoreError(), a.getScoreUnit());
  }
}
