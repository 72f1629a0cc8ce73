package io.idempotent.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The exact cost of a first call and of a replay for each SQL contender of {@link SqlBenchmark} on
 * PostgreSQL: what does not move with the machine's load. Per call, averaged over {@code calls} calls:
 * round trips, statements and commits as the wire shows them ({@link WireTap}), WAL flushes
 * ({@code pg_stat_wal.wal_sync}: the commits that waited for the disk), bytes each way, WAL bytes
 * ({@code pg_current_wal_lsn()}; anything else writing on the server meanwhile counts too), the calling
 * thread's CPU time and allocated bytes, and the CPU time of the server processes serving the pool
 * ({@code /proc/<pid>/stat}, in clock ticks).
 *
 * <pre>{@code java -cp benchmarks/target/benchmarks.jar io.idempotent.benchmarks.CallCosts [calls] [markdown file]}</pre>
 */
public final class CallCosts {

  private static final String APPLICATION = "idempotent-costs";

  /** The costs of one contender's calls of one kind, per call. */
  private record Row(String contender, String call, double roundTrips, double statements, double commits,
      double walFlushes, double bytesToServer, double bytesToClient, double walBytes, double clientCpuMicros, double allocatedBytes,
      double serverCpuMicros) {}

  private CallCosts() {}

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    long microsPerTick = 1_000_000 / clockTicksPerSecond();
    Path markdown = args.length > 1 ? Path.of(args[1]) : null;
    String user = System.getProperty("idempotent.bench.postgres.user", "idempotent");
    String password = System.getProperty("idempotent.bench.postgres.password", "idempotent");
    List<Row> rows = new ArrayList<>();
    try (WireTap tap = new WireTap(5432)) {
      System.setProperty("idempotent.bench.postgres.url", "jdbc:postgresql://127.0.0.1:" + tap.port()
          + "/idempotent_test?sslmode=disable&gssEncMode=disable&ApplicationName=" + APPLICATION);
      Charges charges = new Charges();
      try (SqlRig rig = new SqlRig(BenchDatabase.postgres, 4);
          Connection direct = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/idempotent_test",
              user, password);
          PostgresContenders contenders = new PostgresContenders(rig, charges)) {
        for (Map.Entry<String, PostgresContenders.Contender> e : contenders.all().entrySet()) {
          Keys keys = new Keys();
          for (String k : keys.replayKeys()) {
            e.getValue().first().accept(k);
          }
          long executed = charges.executions.get();
          repeat(e.getValue().first(), keys::fresh, calls / 4); // warm-up
          rows.add(measure(e.getKey(), "first call", e.getValue().first(), keys::fresh, calls, tap, direct, microsPerTick));
          executed = charges.executions.get() - executed;
          if (executed != calls + calls / 4) {
            throw new IllegalStateException(e.getKey() + ": " + executed + " executions for " + (calls + calls / 4)
                + " first calls");
          }
          repeat(e.getValue().replay(), keys::replay, calls / 4); // warm-up
          long before = charges.executions.get();
          rows.add(measure(e.getKey(), "replay", e.getValue().replay(), keys::replay, calls, tap, direct, microsPerTick));
          if (charges.executions.get() != before) {
            throw new IllegalStateException(e.getKey() + ": a replay ran the method");
          }
        }
      }
    }
    String table = table(rows, calls);
    System.out.print(table);
    if (markdown != null) {
      Files.writeString(markdown, table, StandardCharsets.UTF_8);
    }
  }

  private static Row measure(String contender, String call, Consumer<String> body, java.util.function.Supplier<String> keys,
      int calls, WireTap tap, Connection direct, long microsPerTick) throws Exception {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    List<Long> servers = serverPids(direct);
    long syncs = walSyncs(direct);
    long ticks = serverTicks(servers);
    long wal = PostgresContenders.walPosition(direct);
    tap.reset();
    long cpu = threads.getCurrentThreadCpuTime();
    long allocated = threads.getThreadAllocatedBytes(self);
    repeat(body, keys, calls);
    cpu = threads.getCurrentThreadCpuTime() - cpu;
    allocated = threads.getThreadAllocatedBytes(self) - allocated;
    WireTap.Counts wire = tap.counts();
    wal = PostgresContenders.walPosition(direct) - wal;
    ticks = serverTicks(servers) - ticks;
    syncs = walSyncs(direct) - syncs;
    if (!serverPids(direct).equals(servers)) {
      throw new IllegalStateException("the pool opened or closed a connection while " + contender + " ran");
    }
    double n = calls;
    return new Row(contender, call, wire.roundTrips() / n, wire.statements() / n, wire.commits() / n, syncs / n,
        wire.bytesToServer() / n, wire.bytesToClient() / n, wal / n, cpu / 1_000.0 / n, allocated / n,
        ticks * (double) microsPerTick / n);
  }

  private static void repeat(Consumer<String> body, java.util.function.Supplier<String> keys, int calls) {
    for (int i = 0; i < calls; i++) {
      body.accept(keys.get());
    }
  }

  private static List<Long> serverPids(Connection direct) throws SQLException {
    List<Long> pids = new ArrayList<>();
    try (Statement s = direct.createStatement();
        ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE application_name = '" + APPLICATION
            + "' ORDER BY pid")) {
      while (rs.next()) {
        pids.add(rs.getLong(1));
      }
    }
    return pids;
  }

  /** User and system CPU time of the processes, in clock ticks (fields 14 and 15 of {@code /proc/<pid>/stat}). */
  private static long serverTicks(List<Long> pids) throws IOException {
    long ticks = 0;
    for (long pid : pids) {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
    return ticks;
  }

  private static long clockTicksPerSecond() throws IOException {
    Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
    return Long.parseLong(new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim());
  }

  /**
   * How many times the server has synced WAL to disk ({@code pg_stat_wal.wal_sync}), once every server
   * process has reported its counts: they do when idle, within ten seconds.
   */
  private static long walSyncs(Connection c) throws SQLException, InterruptedException {
    Thread.sleep(11_000);
    try (Statement s = c.createStatement()) {
      s.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rs = s.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static String table(List<Row> rows, int calls) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Per call on PostgreSQL, averaged over %,d calls (CallCosts):%n%n", calls));
    b.append("| contender | call | round trips | statements | commits | WAL flushes | bytes sent | bytes received"
        + " | WAL bytes | client CPU µs | client bytes allocated | server CPU µs |\n");
    b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Row r : rows) {
      b.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |%n",
          r.contender(), r.call(), r.roundTrips(), r.statements(), r.commits(), r.walFlushes(), r.bytesToServer(),
          r.bytesToClient(), r.walBytes(), r.clientCpuMicros(), r.allocatedBytes(), r.serverCpuMicros()));
    }
    return b.toString();
  }
}
