package io.idempotent.benchmarks;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
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
import java.util.function.Consumer;

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
    try (SqlRig rig = new SqlRig(BenchDatabase.postgres, 4)) {
      JdbiIdempotencyStore store = rig.storeBuilder().build();
      Idempotency.install(IdempotencyConfig.builder().store(store).build());
      // the same table and call through a store in TRANSACTION_SCOPED mode, called programmatically
      Idempotency scoped = Idempotency.create(IdempotencyConfig.builder()
          .store(rig.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build()).build());
      HandWrittenJdbc handWritten = new HandWrittenJdbc(rig.pool, BenchDatabase.postgres, SqlRig.RECORDS);
      rig.createCamelTable();
      rig.createFloorTable();
      MinimalFloor floor = new MinimalFloor(rig.pool, BenchDatabase.postgres, SqlRig.FLOOR);
      try (CamelPeer camel = new CamelPeer(rig.pool, Charges.CHARGE)) {
        Map<String, Consumer<String>> contenders = new LinkedHashMap<>();
        contenders.put("idempotent", k -> charges.charge(k, 1999));
        contenders.put("handWritten", k -> handWritten.call(Charges.CHARGE, k, 1999, () -> charges.plain(k, 1999)));
        contenders.put("minimalFloor", k -> floor.call(Charges.CHARGE, k, 1999, () -> charges.plain(k, 1999)));
        contenders.put("txScoped", k -> scoped.call(Charges.CHARGE, Receipt.class).key(k).payload(k, 1999L)
            .run(() -> charges.plain(k, 1999)));
        contenders.put("camel", k -> camel.first(k, () -> charges.plain(k, 1999)));
        Map<String, List<Double>> perCall = new LinkedHashMap<>();
        try (Connection c = rig.pool.getConnection()) {
          for (int round = -1; round < rounds; round++) { // round -1 warms up
            for (Map.Entry<String, Consumer<String>> e : contenders.entrySet()) {
              long before = lsn(c);
              for (int i = 0; i < calls; i++) {
                e.getValue().accept(keys.fresh());
              }
              long bytes = lsn(c) - before;
              if (round >= 0) {
                perCall.computeIfAbsent(e.getKey(), x -> new ArrayList<>()).add(bytes / (double) calls);
              }
            }
          }
          System.out.printf(Locale.ROOT, "WAL bytes per first call, %d calls x %d rounds (median, min-max):%n",
              calls, rounds);
          for (Map.Entry<String, List<Double>> e : perCall.entrySet()) {
            double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "  %-13s %7.0f  (%.0f-%.0f)  rounds: %s%n", e.getKey(), v[v.length / 2],
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
      } finally {
        Idempotency.uninstall();
      }
    }
  }

  private static long lsn(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
