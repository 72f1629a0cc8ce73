package io.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The counting data source's counts of a known conversation with an in-memory H2. */
class JdbcCountsTest {

  @Test
  void countsStatementsCommitsAndRollbacks_andUnwrapsToTheDriversConnection() throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:jdbc-counts;DB_CLOSE_DELAY=-1");
    JdbcCounts counts = new JdbcCounts();
    DataSource counted = counts.wrap(h2);
    try (Connection c = counted.getConnection()) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)");
      }
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?)")) {
        ps.setString(1, "a");
        ps.executeUpdate();
        ps.setString(1, "b");
        ps.executeUpdate();
      }
      c.commit();
      try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t")) {
        ps.executeQuery().close();
      }
      c.rollback();
      // the store reaches H2's embedded session through unwrap: the counting must not hide it
      assertThat(c.isWrapperFor(JdbcConnection.class)).isTrue();
      assertThat(c.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class);
    }
    assertThat(counts.statements.sum()).as("statements").isEqualTo(4);
    assertThat(counts.commits.sum()).as("commits").isEqualTo(1);
    assertThat(counts.rollbacks.sum()).as("rollbacks").isEqualTo(1);
  }
}
