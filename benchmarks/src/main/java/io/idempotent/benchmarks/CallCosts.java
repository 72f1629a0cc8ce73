package io.idempotent.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The exact cost of a first call and of a replay for each SQL contender of {@link SqlBenchmark}: what does
 * not move with the machine's load. Per call, averaged over {@code calls} calls, the calling thread's CPU
 * time and allocated bytes, and what the database did, as its {@link CostMeter} counts it: on PostgreSQL
 * round trips, statements, commits, WAL flushes, bytes and the server processes' CPU ({@link PostgresCosts});
 * on the embedded H2 file, statements and file writes ({@link H2Costs}: H2 runs on the calling thread, so
 * the client's CPU is all of it).
 *
 * <pre>{@code java -cp benchmarks/target/benchmarks.jar io.idempotent.benchmarks.CallCosts [postgres|h2file] [calls] [markdown file]}</pre>
 */
public final class CallCosts {

  /** The costs of one contender's calls of one kind, per call: the meter's columns, then CPU and allocation. */
  private record Row(String contender, String call, double[] database, double clientCpuMicros, double allocatedBytes) {}

  private CallCosts() {}

  public static void main(String[] args) throws Exception {
    BenchDatabase db = BenchDatabase.valueOf(args.length > 0 ? args[0] : "postgres");
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
    Path markdown = args.length > 2 ? Path.of(args[2]) : null;
    List<Row> rows = new ArrayList<>();
    Charges charges = new Charges();
    try (CostMeter meter = db == BenchDatabase.postgres ? new PostgresCosts() : new H2Costs();
        SqlRig rig = new SqlRig(db, 4, meter.jdbcCounts());
        SqlContenders contenders = new SqlContenders(rig, charges)) {
      meter.attach(rig);
      for (Map.Entry<String, SqlContenders.Contender> e : contenders.all().entrySet()) {
        Keys keys = new Keys();
        for (String k : keys.replayKeys()) {
          e.getValue().first().accept(k);
        }
        long executed = charges.executions.get();
        repeat(e.getValue().first(), keys::fresh, calls / 4); // warm-up
        rows.add(measure(e.getKey(), "first call", e.getValue().first(), keys::fresh, calls, meter));
        executed = charges.executions.get() - executed;
        if (executed != calls + calls / 4) {
          throw new IllegalStateException(e.getKey() + ": " + executed + " executions for " + (calls + calls / 4)
              + " first calls");
        }
        repeat(e.getValue().replay(), keys::replay, calls / 4); // warm-up
        long before = charges.executions.get();
        rows.add(measure(e.getKey(), "replay", e.getValue().replay(), keys::replay, calls, meter));
        if (charges.executions.get() != before) {
          throw new IllegalStateException(e.getKey() + ": a replay ran the method");
        }
      }
      String table = table(meter, rows, calls);
      System.out.print(table);
      if (markdown != null) {
        Files.writeString(markdown, table, StandardCharsets.UTF_8);
      }
    }
  }

  private static Row measure(String contender, String call, Consumer<String> body, Supplier<String> keys, int calls,
      CostMeter meter) throws Exception {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    meter.start();
    long cpu = threads.getCurrentThreadCpuTime();
    long allocated = threads.getThreadAllocatedBytes(self);
    repeat(body, keys, calls);
    cpu = threads.getCurrentThreadCpuTime() - cpu;
    allocated = threads.getThreadAllocatedBytes(self) - allocated;
    double[] database = meter.stop(contender);
    for (int i = 0; i < database.length; i++) {
      database[i] /= calls;
    }
    return new Row(contender, call, database, cpu / 1_000.0 / calls, allocated / (double) calls);
  }

  private static void repeat(Consumer<String> body, Supplier<String> keys, int calls) {
    for (int i = 0; i < calls; i++) {
      body.accept(keys.get());
    }
  }

  private static String table(CostMeter meter, List<Row> rows, int calls) {
    List<String> columns = meter.columns();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Per call on %s, averaged over %,d calls (CallCosts):%n%n", meter.database(),
        calls));
    b.append("| contender | call | ").append(String.join(" | ", columns))
        .append(" | client CPU µs | client bytes allocated |\n");
    b.append("| --- | --- |").append(" ---: |".repeat(columns.size() + 2)).append('\n');
    for (Row r : rows) {
      b.append("| ").append(r.contender()).append(" | ").append(r.call()).append(" |");
      for (int i = 0; i < r.database().length; i++) {
        b.append(String.format(Locale.ROOT, " %." + meter.decimals(i) + "f |", r.database()[i]));
      }
      b.append(String.format(Locale.ROOT, " %.0f | %.0f |%n", r.clientCpuMicros(), r.allocatedBytes()));
    }
    return b.toString();
  }
}
