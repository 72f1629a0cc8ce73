package io.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark for one short iteration in this JVM, so that a change that breaks one (a
 * failing setup, a replay that runs the method, a round with two executions, a woven call that no
 * longer works) fails the build. Says nothing about speed. PostgreSQL benchmarks need the test server;
 * without it they are left out (the HTTP filter runs on Caffeine only), unless
 * {@code idempotent.requireServers=true}, which makes it a failure.
 */
class BenchmarkSmokeTest {

  /** Benchmark (class.method or class.group) → how many parameter combinations it has. */
  private static final Map<String, Integer> ALL = Map.ofEntries(
      Map.entry("InMemoryBenchmark.firstCall", InMemoryBenchmark.Impl.values().length),
      Map.entry("InMemoryBenchmark.replay", InMemoryBenchmark.Impl.values().length),
      Map.entry("MicrometerBenchmark.firstCall", MicrometerBenchmark.Binder.values().length),
      Map.entry("MicrometerBenchmark.replay", MicrometerBenchmark.Binder.values().length),
      Map.entry("SqlBenchmark.firstCall", BenchDatabase.values().length * SqlBenchmark.Impl.values().length),
      Map.entry("SqlBenchmark.replay", BenchDatabase.values().length * SqlBenchmark.Impl.values().length),
      Map.entry("CommitCostBenchmark.firstCall", CommitCostBenchmark.Mode.values().length),
      Map.entry("BatchConsumerBenchmark.consume", BatchConsumers.Mode.values().length),
      Map.entry("LayeredBenchmark.replay", 2),
      Map.entry("ResultKeepingBenchmark.replay", ResultKeepingBenchmark.Result.values().length),
      Map.entry("RedisBenchmark.firstCall", 3),
      Map.entry("RedisBenchmark.replay", 3),
      Map.entry("ScalingBenchmark.threads01", 2),
      Map.entry("ScalingBenchmark.threads02", 2),
      Map.entry("ScalingBenchmark.threads04", 2),
      Map.entry("ScalingBenchmark.threads08", 2),
      Map.entry("ScalingBenchmark.threads16", 2),
      Map.entry("ContentionBenchmark.round", 3),
      Map.entry("PurgeBenchmark.quiet", 1),
      Map.entry("PurgeBenchmark.purging", 1),
      Map.entry("HttpFilterBenchmark.bare", HttpFilterBenchmark.Store.values().length),
      Map.entry("HttpFilterBenchmark.filterFirst", HttpFilterBenchmark.Store.values().length),
      Map.entry("HttpFilterBenchmark.filterReplay", HttpFilterBenchmark.Store.values().length),
      Map.entry("WebFilterBenchmark.bare", WebFilterBenchmark.Store.values().length),
      Map.entry("WebFilterBenchmark.filterFirst", WebFilterBenchmark.Store.values().length),
      Map.entry("WebFilterBenchmark.filterReplay", WebFilterBenchmark.Store.values().length));

  @Test
  void everyBenchmark_runsOneShortIteration_andPassesItsOwnChecks() throws RunnerException {
    // a smoke run must not refuse to start because a measuring run elsewhere holds JMH's lock
    System.setProperty("jmh.ignoreLock", "true");
    boolean postgres = postgresReachable();
    boolean redis = redisReachable();
    ChainedOptionsBuilder options = new OptionsBuilder()
        .forks(0)
        .warmupIterations(0)
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(500))
        .param("expiredRows", "20000")
        .shouldFailOnError(true);
    if (postgres) {
      options.include("io\\.idempotent\\.benchmarks\\..*Benchmark");
      if (!redis) {
        options.exclude("RedisBenchmark");
      }
    } else {
      options.include("io\\.idempotent\\.benchmarks\\.(InMemory|Micrometer|Sql|ResultKeeping|HttpFilter|WebFilter)Benchmark")
          .param("db", "h2file", "h2mem")
          .param("store", HttpFilterBenchmark.Store.caffeine.name());
    }

    Collection<RunResult> results = new Runner(options.build()).run();

    Map<String, Integer> ran = new TreeMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      label = label.substring(label.lastIndexOf('.', label.lastIndexOf('.') - 1) + 1);
      ran.merge(label, 1, Integer::sum);
      assertThat(r.getPrimaryResult().getScore()).as(label + " " + r.getParams()).isPositive().isFinite();
    }
    Map<String, Integer> expected = new TreeMap<>(ALL);
    if (!redis) {
      expected.keySet().removeIf(k -> k.startsWith("Redis"));
    }
    if (!postgres) {
      expected.keySet().removeIf(k -> !k.startsWith("InMemory") && !k.startsWith("Micrometer")
          && !k.startsWith("Sql") && !k.startsWith("ResultKeeping") && !k.startsWith("HttpFilter")
          && !k.startsWith("WebFilter"));
      expected.replaceAll((k, v) -> k.startsWith("Sql") ? 2 * SqlBenchmark.Impl.values().length
          : k.startsWith("HttpFilter") || k.startsWith("WebFilter") ? 1 : v);
    }
    assertThat(ran).isEqualTo(expected);
  }

  private static boolean redisReachable() {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress("127.0.0.1", 6379), 2000);
      return true;
    } catch (java.io.IOException e) {
      if (Boolean.getBoolean("idempotent.requireServers")) {
        fail("Redis is not reachable at 127.0.0.1:6379; servers are required (idempotent.requireServers=true)");
      }
      System.err.println("[benchmarks smoke] Redis is not reachable at 127.0.0.1:6379: RedisBenchmark left out");
      return false;
    }
  }

  private static boolean postgresReachable() {
    String url = System.getProperty("idempotent.bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/idempotent_test");
    try (Connection c = DriverManager.getConnection(url, System.getProperty("idempotent.bench.postgres.user", "idempotent"),
        System.getProperty("idempotent.bench.postgres.password", "idempotent"))) {
      return c.isValid(5);
    } catch (SQLException e) {
      String problem = "PostgreSQL is not reachable at " + url + " (" + e.getMessage() + ")";
      if (Boolean.getBoolean("idempotent.requireServers")) {
        fail(problem + "; servers are required (idempotent.requireServers=true)");
      }
      System.err.println("[benchmarks smoke] " + problem + ": PostgreSQL benchmarks left out");
      return false;
    }
  }
}
