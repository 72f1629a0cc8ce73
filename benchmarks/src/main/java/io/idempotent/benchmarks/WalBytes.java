package io.idempotent.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * WAL bytes per first call on PostgreSQL, for each SQL contender of {@link SqlBenchmark}: the position of
 * the write-ahead log ({@code pg_current_wal_lsn()}) before and after {@code calls} first calls, in
 * rounds that take the contenders in turn, so that each contender's rounds are spread over the same
 * stretch of time. WAL written meanwhile by anything else on the server counts too: run it on a quiet
 * server (under the build lock). Also reports, per table, the share of updates that were HOT
 * ({@code pg_stat_user_tables}, read once the statistics have arrived).
 *
 * <pre>{@code java -cp benchmarks/target/benchmarks.jar io.idempotent.benchmarks.WalBytes [calls] [rounds]}</pre>
 */
public final class WalBytes {

  private WalBytes() {}

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Charges charges = new Charges();
    Keys keys = new Keys();
    try (SqlRig rig = new SqlRig(BenchDatabase.postgres, 4);
        SqlContenders contenders = new SqlContenders(rig, charges)) {
      Map<String, List<Double>> perCall = new LinkedHashMap<>();
      try (Connection c = rig.pool.getConnection()) {
        for (int round = -1; round < rounds; round++) { // round -1 warms up
          for (Map.Entry<String, SqlContenders.Contender> e : contenders.all().entrySet()) {
            long before = walPosition(c);
            for (int i = 0; i < calls; i++) {
              e.getValue().first().accept(keys.fresh());
            }
            long bytes = walPosition(c) - before;
            if (round >= 0) {
              perCall.computeIfAbsent(e.getKey(), x -> new ArrayList<>()).add(bytes / (double) calls);
            }
          }
        }
        System.out.printf(Locale.ROOT, "WAL bytes per first call, %d calls x %d rounds (median, min-max):%n",
            calls, rounds);
        for (Map.Entry<String, List<Double>> e : perCall.entrySet()) {
          double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
          System.out.printf(Locale.ROOT, "  %-32s %7.0f  (%.0f-%.0f)  rounds: %s%n", e.getKey(), v[v.length / 2],
              v[0], v[v.length - 1], Arrays.toString(Arrays.stream(v).mapToLong(Math::round).toArray()));
        }
        Thread.sleep(11_000); // the other server processes send their statistics when idle, within 10 s
        try (Statement s = c.createStatement()) {
          s.execute("SELECT pg_stat_clear_snapshot()");
          try (ResultSet rs = s.executeQuery("SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd"
              + " FROM pg_stat_user_tables WHERE relname IN ('" + SqlRig.RECORDS + "', '" + SqlRig.FLOOR + "', '"
              + SqlRig.CAMEL + "') ORDER BY relname")) {
            System.out.println("updates that were HOT (the store's and the hand-written floor's table is shared):");
            while (rs.next()) {
              System.out.printf(Locale.ROOT, "  %-26s inserts %d, updates %d, HOT %d%n", rs.getString(1),
                  rs.getLong(2), rs.getLong(3), rs.getLong(4));
            }
          }
        }
      }
    }
  }

  /** The server's position in its write-ahead log, in bytes. */
  static long walPosition(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

}
