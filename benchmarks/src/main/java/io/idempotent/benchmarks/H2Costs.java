package io.idempotent.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The embedded H2 file's side of {@link CallCosts}: the statements, commits and rollbacks the pool's
 * connections were asked for ({@link JdbcCounts}), and the writes to the database file and their bytes
 * (H2's {@code info.FILE_WRITE} and {@code info.FILE_WRITE_BYTES}): with {@code WRITE_DELAY=0} each commit
 * that changed something is one write, an auto-commit statement's included. H2 runs on the calling thread,
 * so the client's CPU time is the database's too.
 */
final class H2Costs implements CostMeter {

  private static final String WRITES = "SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
      + " WHERE SETTING_NAME IN ('info.FILE_WRITE', 'info.FILE_WRITE_BYTES') ORDER BY SETTING_NAME";

  private final JdbcCounts counts = new JdbcCounts();
  private Connection files;
  private long[] before = new long[5];

  @Override
  public String database() {
    return "the embedded H2 file (WRITE_DELAY=0)";
  }

  @Override
  public List<String> columns() {
    return List.of("statements", "commits", "rollbacks", "file writes", "bytes written");
  }

  @Override
  public int decimals(int i) {
    return i < 4 ? 2 : 0;
  }

  @Override
  public JdbcCounts jdbcCounts() {
    return counts;
  }

  @Override
  public void attach(SqlRig rig) throws SQLException {
    files = rig.pool.getConnection();
  }

  @Override
  public void start() throws SQLException {
    before = counts();
  }

  @Override
  public double[] stop(String contender) throws SQLException {
    long[] after = counts();
    double[] d = new double[after.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = after[i] - before[i];
    }
    d[0]--; // the read of the file counts below, made before the calls
    return d;
  }

  private long[] counts() throws SQLException {
    long[] c = new long[5];
    try (Statement s = files.createStatement(); ResultSet rs = s.executeQuery(WRITES)) {
      rs.next();
      c[3] = Long.parseLong(rs.getString(2)); // info.FILE_WRITE
      rs.next();
      c[4] = Long.parseLong(rs.getString(2)); // info.FILE_WRITE_BYTES
    }
    c[0] = counts.statements.sum();
    c[1] = counts.commits.sum();
    c[2] = counts.rollbacks.sum();
    return c;
  }

  @Override
  public void close() throws SQLException {
    if (files != null) {
      files.close();
    }
  }
}
