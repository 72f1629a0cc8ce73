package io.idempotent.benchmarks;

import java.io.IOException;
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

/**
 * PostgreSQL's side of {@link CallCosts}: round trips, statements and commits as the wire shows them
 * ({@link WireTap}, which the rig's pool connects through: construct this before the rig), WAL flushes
 * ({@code pg_stat_wal.wal_sync}: the commits that waited for the disk), bytes each way, WAL bytes
 * ({@code pg_current_wal_lsn()}; anything else writing on the server meanwhile counts too), and the CPU
 * time of the server processes serving the pool ({@code /proc/<pid>/stat}, in clock ticks).
 */
final class PostgresCosts implements CostMeter {

  private static final String APPLICATION = "idempotent-costs";

  private final WireTap tap;
  private final Connection direct;
  private final long microsPerTick;
  private List<Long> servers = List.of();
  private long syncs;
  private long ticks;
  private long wal;

  PostgresCosts() throws IOException, SQLException {
    microsPerTick = 1_000_000 / clockTicksPerSecond();
    tap = new WireTap(5432);
    System.setProperty("idempotent.bench.postgres.url", "jdbc:postgresql://127.0.0.1:" + tap.port()
        + "/idempotent_test?sslmode=disable&gssEncMode=disable&ApplicationName=" + APPLICATION);
    direct = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/idempotent_test",
        System.getProperty("idempotent.bench.postgres.user", "idempotent"),
        System.getProperty("idempotent.bench.postgres.password", "idempotent"));
  }

  @Override
  public String database() {
    return "PostgreSQL";
  }

  @Override
  public List<String> columns() {
    return List.of("round trips", "statements", "commits", "WAL flushes", "bytes sent", "bytes received", "WAL bytes",
        "server CPU µs");
  }

  @Override
  public int decimals(int i) {
    return i < 4 ? 2 : 0;
  }

  @Override
  public void attach(SqlRig rig) {}

  @Override
  public void start() throws Exception {
    servers = serverPids();
    syncs = walSyncs();
    ticks = serverTicks(servers);
    wal = WalBytes.walPosition(direct);
    tap.reset();
  }

  @Override
  public double[] stop(String contender) throws Exception {
    WireTap.Counts wire = tap.counts();
    long walBytes = WalBytes.walPosition(direct) - wal;
    long serverTicks = serverTicks(servers) - ticks;
    long flushes = walSyncs() - syncs;
    if (!serverPids().equals(servers)) {
      throw new IllegalStateException("the pool opened or closed a connection while " + contender + " ran");
    }
    return new double[] {wire.roundTrips(), wire.statements(), wire.commits(), flushes, wire.bytesToServer(),
        wire.bytesToClient(), walBytes, serverTicks * (double) microsPerTick};
  }

  private List<Long> serverPids() throws SQLException {
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
  private long walSyncs() throws SQLException, InterruptedException {
    Thread.sleep(11_000);
    try (Statement s = direct.createStatement()) {
      s.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rs = s.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() throws IOException, SQLException {
    try (tap) {
      direct.close();
    }
  }
}
