package io.idempotent.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a JMH result file ({@code -rf json}) into the README's tables: every goal of the benchmark
 * issue as a ratio against its baseline from the same run, with the error propagated from JMH's score
 * errors (relative errors added in quadrature), then the raw scores. Usage:
 * {@code ResultsTable results.json [retained-heap.json [environment.txt]]}; writes Markdown to stdout.
 */
public final class ResultsTable {

  private final List<JsonNode> results = new ArrayList<>();
  private final PrintStream out;

  private ResultsTable(JsonNode array, PrintStream out) {
    array.forEach(results::add);
    this.out = out;
  }

  /** A value with its error (NaN when JMH had too few iterations to give one). */
  record Value(double v, double err) {
    Value over(Value d) {
      double r = v / d.v;
      return new Value(r, Math.abs(r) * Math.sqrt(sq(err / v) + sq(d.err / d.v)));
    }

    Value times(double k) {
      return new Value(v * k, err * Math.abs(k));
    }

    private static double sq(double x) {
      return x * x;
    }

    String ratio() {
      return Double.isNaN(err) ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.2f ± %.2f", v, err);
    }
  }

  public static void main(String[] args) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    ResultsTable table = new ResultsTable(mapper.readTree(new File(args[0])), out);
    if (args.length > 2) {
      out.println("```");
      out.print(Files.readString(Path.of(args[2])));
      out.println("```");
      out.println();
    }
    table.goals();
    if (args.length > 1) {
      table.heap(mapper.readTree(new File(args[1])));
    }
    table.raw();
  }

  // ---- lookups

  /** The result of {@code benchmark} (class.method) whose parameters include all of {@code params} ("k=v,k=v"). */
  private JsonNode find(String benchmark, String params) {
    for (JsonNode r : results) {
      if (!r.get("benchmark").asText().endsWith("." + benchmark)) {
        continue;
      }
      boolean all = true;
      for (String kv : params.isEmpty() ? new String[0] : params.split(",")) {
        String[] p = kv.split("=");
        JsonNode ps = r.get("params");
        if (ps == null || ps.get(p[0]) == null || !ps.get(p[0]).asText().equals(p[1])) {
          all = false;
        }
      }
      if (all) {
        return r;
      }
    }
    return null;
  }

  private static Value metric(JsonNode r, String name) {
    if (r == null) {
      return null;
    }
    JsonNode m = name == null ? r.get("primaryMetric") : r.path("secondaryMetrics").get(name);
    if (m == null) {
      return null;
    }
    JsonNode e = m.get("scoreError");
    double err = e == null || !e.isNumber() ? Double.NaN : e.asDouble();
    return new Value(m.get("score").asDouble(), err);
  }

  private Value time(String benchmark, String params) {
    return metric(find(benchmark, params), null);
  }

  private Value alloc(String benchmark, String params) {
    return metric(find(benchmark, params), "gc.alloc.rate.norm");
  }

  // ---- the goal table

  private void goals() {
    out.println("| scenario | comparison (same run) | time ratio | goal | | allocation ratio (B/op) | goal | |");
    out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (String m : new String[] {"firstCall", "replay"}) {
      String bench = "InMemoryBenchmark." + m;
      // a first call at most 1.3 times the floor's time, a replay 1.5; allocation 1.5 times for both
      double timeGoal = m.equals("firstCall") ? 1.3 : 1.5;
      row("1 in memory", m + ": @Idempotent (Caffeine) / hand-written", bench, "impl=idempotent", bench,
          "impl=handWritten", "≤", timeGoal, 1.5);
      row("1 in memory", m + ", no fingerprint: @Idempotent / hand-written", bench,
          "impl=idempotentNoFingerprint", bench, "impl=handWrittenNoFingerprint", "≤", timeGoal, 1.5);
      row("1 in memory", m + ": plain call / hand-written", bench, "impl=plain", bench, "impl=handWritten",
          null, 0, 0);
      row("1 in memory", m + ": the engine without AspectJ's join point / hand-written", bench,
          "impl=engineUnwoven", bench, "impl=handWritten", null, 0, 0);
      row("1 in memory", m + ", no fingerprint: the engine without the join point / hand-written", bench,
          "impl=engineUnwovenNoFingerprint", bench, "impl=handWrittenNoFingerprint", null, 0, 0);
    }
    for (String db : new String[] {"h2file", "h2mem", "postgres"}) {
      for (String m : new String[] {"firstCall", "replay"}) {
        String bench = "SqlBenchmark." + m;
        row("2 SQL " + db, m + ": @Idempotent (JDBI) / hand-written JDBC", bench, "db=" + db + ",impl=idempotent",
            bench, "db=" + db + ",impl=handWritten", "≤", 1.2, 1.5);
        boolean first = m.equals("firstCall");
        // against Camel: on PostgreSQL a first call ≤ 1.15, a replay ≤ 0.8 (in every mode); the embedded
        // default (H2 file, independent) a first call ≤ 1.5 and a replay ≤ 1.1; H2 in memory has no goal
        double camelGoal = db.equals("postgres") ? (first ? 1.15 : 0.8) : first ? 1.5 : 1.1;
        row("2 SQL " + db, m + ": @Idempotent / Camel " + (first ? "add + confirm" : "contains"),
            bench, "db=" + db + ",impl=idempotent", bench, "db=" + db + ",impl=camel",
            db.equals("h2mem") ? null : "≤", camelGoal, first && db.equals("h2file") ? 1.5 : 0);
        row("2 SQL " + db, m + ": hand-written JDBC / Camel", bench, "db=" + db + ",impl=handWritten", bench,
            "db=" + db + ",impl=camel", null, 0, 0);
        row("2 SQL " + db, m + ": @Idempotent / minimal two-commit floor", bench, "db=" + db + ",impl=idempotent",
            bench, "db=" + db + ",impl=minimalFloor", null, 0, 0);
        row("2 SQL " + db, m + ": minimal two-commit floor / Camel", bench, "db=" + db + ",impl=minimalFloor",
            bench, "db=" + db + ",impl=camel", null, 0, 0);
        row("2 SQL " + db, m + ": transaction-scoped @Idempotent / Camel "
            + (m.equals("replay") ? "contains" : "add + confirm"), bench, "db=" + db + ",impl=transactionScoped",
            bench, "db=" + db + ",impl=camel", db.equals("postgres") ? "≤" : null, first ? 0.9 : 0.8, 0);
      }
    }
    String cc = "CommitCostBenchmark.firstCall";
    row("3 commit cost", "joined / independent", cc, "mode=joined", cc, "mode=independent", "≤", 0.6, 0);
    row("3 commit cost", "relaxed claim / independent", cc, "mode=relaxed", cc, "mode=independent", "≤", 0.6, 0);
    row("3 commit cost", "relaxed claim + joined / independent", cc, "mode=relaxedJoined", cc, "mode=independent",
        null, 0, 0);
    row("3 commit cost", "business transaction alone / independent", cc, "mode=businessOnly", cc,
        "mode=independent", null, 0, 0);
    row("3 commit cost", "joined transaction-scoped / business transaction alone", cc,
        "mode=joinedTransactionScoped", cc, "mode=businessOnly", "≤", 1.3, 0);
    row("3 commit cost", "joined / business transaction alone", cc, "mode=joined", cc, "mode=businessOnly", null,
        0, 0);
    row("3 commit cost", "transaction-scoped / independent", cc, "mode=transactionScoped", cc, "mode=independent",
        null, 0, 0);
    for (String mode : new String[] {"independent", "joined", "relaxed", "relaxedJoined", "transactionScoped",
        "joinedTransactionScoped"}) {
      row("3 commit cost", mode + " / Camel add + confirm around the same transaction", cc, "mode=" + mode, cc,
          "mode=camel", null, 0, 0);
    }
    String lb = "LayeredBenchmark.replay";
    row("4 layered", "PostgreSQL replay / near-hit replay (times cheaper)", lb, "store=postgres", lb,
        "store=nearHit", "≥", 20, 0);
    scaling();
    contention();
    purge();
    redis();
    http();
    micrometer();
    out.println();
  }

  private void row(String scenario, String label, String nb, String np, String db, String dp, String op,
      double goal, double allocGoal) {
    Value n = time(nb, np);
    Value d = time(db, dp);
    if (n == null || d == null) {
      return;
    }
    Value r = n.over(d);
    Value an = alloc(nb, np);
    Value ad = alloc(db, dp);
    Value ar = an != null && ad != null && ad.v > 0 && allocGoal >= 0 ? an.over(ad) : null;
    out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s |%n", scenario, label, r.ratio(),
        op == null ? "" : op + " " + goal, op == null ? "" : verdict(r, op, goal),
        ar == null ? "" : ar.ratio(), allocGoal <= 0 ? "" : "≤ " + allocGoal,
        allocGoal <= 0 || ar == null ? "" : verdict(ar, "≤", allocGoal));
  }

  /** Beyond the scenarios of the goals: the Redis store, measured in the same run. */
  private void redis() {
    for (String m : new String[] {"firstCall", "replay"}) {
      String rb = "RedisBenchmark." + m;
      row("Redis", m + ": @Idempotent (Redis) / hand-written SET NX", rb, "impl=idempotent", rb,
          "impl=handWrittenSetNx", null, 0, 0);
    }
    String rr = "RedisBenchmark.replay";
    row("Redis", "Redis replay / layered near-hit replay (times cheaper)", rr, "impl=idempotent", rr,
        "impl=layeredCaffeineOverRedis", null, 0, 0);
  }

  /** The servlet filter per HTTP request, against the same endpoint without it, on each store. */
  private void http() {
    String b = "HttpFilterBenchmark.";
    for (String store : new String[] {"caffeine", "postgres"}) {
      String name = store.equals("caffeine") ? "Caffeine" : "PostgreSQL";
      row("HTTP filter", "replay through the filter (" + name + ") / bare endpoint", b + "filterReplay",
          "store=" + store, b + "bare", "store=" + store, store.equals("caffeine") ? "≤" : null, 1.5, 0);
      row("HTTP filter", "first request through the filter (" + name + ") / bare endpoint", b + "filterFirst",
          "store=" + store, b + "bare", "store=" + store, store.equals("postgres") ? "≤" : null, 2.5, 0);
    }
  }

  /** idempotent-micrometer: the same woven call on Caffeine with and without the binder. */
  private void micrometer() {
    for (String m : new String[] {"replay", "firstCall"}) {
      String b = "MicrometerBenchmark." + m;
      row("Micrometer", m + ": with the meters, as set up by default / without the binder", b, "binder=meters", b,
          "binder=none", m.equals("replay") ? "≤" : null, 1.3, 0);
      row("Micrometer", m + ": with the meters and the store-operation timers / without the binder", b,
          "binder=metersAndStoreOperations", b, "binder=none", null, 0, 0);
      row("Micrometer", m + ": with the meters and an observation per call / without the binder", b,
          "binder=metersAndObservations", b, "binder=none", null, 0, 0);
      row("Micrometer", m + ": a hand-written timer of every call / without the binder", b,
          "binder=handWrittenTimer", b, "binder=none", null, 0, 0);
      row("Micrometer", m + ": with the meters, as set up by default / the hand-written timer", b, "binder=meters",
          b, "binder=handWrittenTimer", "≤", 1.1, 0);
    }
  }

  private static String verdict(Value r, String op, double goal) {
    boolean met = op.equals("≤") ? r.v <= goal : r.v >= goal;
    if (met) {
      return "met";
    }
    boolean within = !Double.isNaN(r.err) && (op.equals("≤") ? r.v - r.err <= goal : r.v + r.err >= goal);
    return within ? "within error" : "**missed**";
  }

  private void scaling() {
    for (String n : new String[] {"01", "02", "04", "08", "16"}) {
      String b = "ScalingBenchmark.threads" + n;
      // throughput: the cost ratio is the inverse of the throughput ratio
      row("5 scaling", Integer.parseInt(n) + " threads: cost @Idempotent / hand-written (inverse throughput)",
          b, "impl=handWritten", b, "impl=idempotent", "≤", 1.2, -1);
      Value a = alloc(b, "impl=idempotent");
      Value h = alloc(b, "impl=handWritten");
      if (a != null && h != null) {
        out.printf(Locale.ROOT, "| 5 scaling | %d threads: allocation @Idempotent / hand-written | | | | %s | ≤ 1.5 | %s |%n",
            Integer.parseInt(n), a.over(h).ratio(), verdict(a.over(h), "≤", 1.5));
      }
    }
    for (String impl : new String[] {"idempotent", "handWritten"}) {
      Value one = time("ScalingBenchmark.threads01", "impl=" + impl);
      for (String n : new String[] {"02", "04", "08", "16"}) {
        Value t = time("ScalingBenchmark.threads" + n, "impl=" + impl);
        if (one != null && t != null) {
          out.printf(Locale.ROOT, "| 5 scaling | %s: throughput at %d threads / 1 thread | %s | | | | | |%n",
              impl, Integer.parseInt(n), t.over(one).ratio());
        }
      }
    }
  }

  private void contention() {
    JsonNode plain = find("ContentionBenchmark.round", "store=plain");
    for (String store : new String[] {"postgres", "layered"}) {
      JsonNode r = find("ContentionBenchmark.round", "store=" + store);
      if (r == null || plain == null) {
        continue;
      }
      Value waiter = metric(r, "waiterMicros").over(metric(r, "waiters"));
      Value body = metric(plain, "waiterMicros").over(metric(plain, "waiters"));
      Value perRound = metric(r, "executions").over(metric(r, "rounds"));
      out.printf(Locale.ROOT, "| 5 contention | 32 callers, one key, %s: mean latency of the 31 waiters / the"
          + " %d ms method alone (waiters: %.1f ms) | %s | | | | | |%n", store, ContentionBenchmark.BODY_MILLIS,
          waiter.v / 1000, waiter.over(body).ratio());
      out.printf(Locale.ROOT, "| 5 contention | 32 callers, one key, %s: executions per round (%.0f rounds) | %s |"
          + " = 1 | %s | | | |%n", store, metric(r, "rounds").v, perRound.ratio(),
          Math.abs(perRound.v - 1.0) < 1e-9 ? "met" : "**missed**");
    }
  }

  private void purge() {
    JsonNode g = find("PurgeBenchmark.purging", "");
    Value quiet = time("PurgeBenchmark.quiet", "");
    if (g == null || quiet == null) {
      return;
    }
    Value during = metric(g, "claimDuringPurge");
    Value batch = metric(g, "purgeBatch");
    out.printf(Locale.ROOT, "| 6 purge | first-call latency during the purge / without it | %s | | | | | |%n",
        during.over(quiet).ratio());
    Value rate = new Value(PurgeBenchmark.BATCH, 0).over(batch).times(1000); // batch time in ms
    out.printf(Locale.ROOT, "| 6 purge | purge rate, batches of %d while claims continue (rows/s, absolute) | %.0f ± %.0f"
        + " | | | | | |%n", PurgeBenchmark.BATCH, rate.v, rate.err);
  }

  // ---- heap and raw scores

  private void heap(JsonNode heap) {
    Value c = meanOf(heap.get("caffeine"));
    Value h = meanOf(heap.get("handWritten"));
    out.printf(Locale.ROOT, "Retained heap per completed record (small result, %d records, %d rounds): Caffeine"
        + " store %.0f ± %.0f bytes, hand-written map %.0f ± %.0f bytes, ratio %s.%n%n", heap.get("records").asInt(),
        heap.get("caffeine").size(), c.v, c.err, h.v, h.err, c.over(h).ratio());
  }

  private static Value meanOf(JsonNode array) {
    double sum = 0;
    double sq = 0;
    int n = array.size();
    for (JsonNode x : array) {
      sum += x.asDouble();
      sq += x.asDouble() * x.asDouble();
    }
    double mean = sum / n;
    double sd = n > 1 ? Math.sqrt(Math.max(0, (sq - n * mean * mean) / (n - 1))) : Double.NaN;
    return new Value(mean, sd);
  }

  private void raw() {
    out.println("| benchmark | parameters | score | error | unit | allocation (B/op) | secondary |");
    out.println("| --- | --- | --- | --- | --- | --- | --- |");
    for (JsonNode r : results) {
      String name = r.get("benchmark").asText();
      name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
      Map<String, String> params = new TreeMap<>();
      for (Map.Entry<String, JsonNode> e : r.path("params").properties()) {
        params.put(e.getKey(), e.getValue().asText());
      }
      JsonNode p = r.get("primaryMetric");
      Value alloc = metric(r, "gc.alloc.rate.norm");
      StringBuilder secondary = new StringBuilder();
      r.path("secondaryMetrics").properties().forEach(e -> {
        if (!e.getKey().startsWith("gc.")) {
          secondary.append(secondary.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
              .append(String.format(Locale.ROOT, "%.3f", e.getValue().get("score").asDouble())).append(' ')
              .append(e.getValue().get("scoreUnit").asText());
        }
      });
      out.printf(Locale.ROOT, "| %s | %s | %.3f | %s | %s | %s | %s |%n", name, params.isEmpty() ? "" : params,
          p.get("score").asDouble(), p.get("scoreError").isNumber()
              ? String.format(Locale.ROOT, "%.3f", p.get("scoreError").asDouble()) : "",
          p.get("scoreUnit").asText(), alloc == null ? "" : String.format(Locale.ROOT, "%.0f", alloc.v), secondary);
    }
  }
}
