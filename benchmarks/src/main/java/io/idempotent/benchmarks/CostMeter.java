package io.idempotent.benchmarks;

import java.util.List;

/**
 * What a database did during a stretch of calls, counted exactly: {@link #start()} before the calls,
 * {@link #stop} after them returns the totals, one per {@link #columns() column}. Used by {@link CallCosts};
 * one thread.
 */
interface CostMeter extends AutoCloseable {

  /** The database measured, as the table names it. */
  String database();

  /** The names of the counts {@link #stop} returns, in order. */
  List<String> columns();

  /** The decimals shown for column {@code i}. */
  default int decimals(int i) {
    return 0;
  }

  /** What the rig's connections are to be made through, or null for none. */
  default JdbcCounts jdbcCounts() {
    return null;
  }

  /** Called once, before any measurement, with the rig whose calls are measured. */
  void attach(SqlRig rig) throws Exception;

  void start() throws Exception;

  /** The totals since {@link #start()}; {@code contender} names the calls in an error. */
  double[] stop(String contender) throws Exception;

  @Override
  void close() throws java.io.IOException, java.sql.SQLException;
}
