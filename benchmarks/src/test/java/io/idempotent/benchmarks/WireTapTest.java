package io.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tap's counts of known conversations with the PostgreSQL server. */
class WireTapTest {

  private static final String USER = System.getProperty("idempotent.bench.postgres.user", "idempotent");
  private static final String PASSWORD = System.getProperty("idempotent.bench.postgres.password", "idempotent");

  @BeforeAll
  static void postgresAnswers() {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/idempotent_test", USER,
        PASSWORD)) {
      c.isValid(5);
    } catch (SQLException e) {
      String problem = "PostgreSQL is not reachable at 127.0.0.1:5432 (" + e.getMessage() + ")";
      if (Boolean.getBoolean("idempotent.requireServers")) {
        fail(problem + "; servers are required (idempotent.requireServers=true)");
      }
      System.err.println("[WireTapTest] " + problem + ": skipped");
      Assumptions.abort(problem);
    }
  }

  private static Connection through(WireTap tap) throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + tap.port()
        + "/idempotent_test?sslmode=disable&gssEncMode=disable", USER, PASSWORD);
  }

  @Test
  void autoCommitStatement_isOneRoundTrip_oneStatement_oneCommit() throws Exception {
    try (WireTap tap = new WireTap(5432); Connection c = through(tap); Statement s = c.createStatement()) {
      tap.reset();
      s.execute("SELECT 1");
      assertThat(tap.counts()).isEqualTo(new WireTap.Counts(1, 1, 1, tap.counts().bytesToServer(),
          tap.counts().bytesToClient()));
      assertThat(tap.counts().bytesToServer()).isPositive();
      assertThat(tap.counts().bytesToClient()).isPositive();
    }
  }

  @Test
  void transaction_countsItsBeginAndCommit_asStatements_andCommitsOnce() throws Exception {
    try (WireTap tap = new WireTap(5432); Connection c = through(tap); Statement s = c.createStatement()) {
      s.execute("CREATE TEMP TABLE tap_test (k TEXT)");
      c.setAutoCommit(false);
      tap.reset();
      s.execute("INSERT INTO tap_test VALUES ('a')"); // BEGIN goes with it
      s.execute("INSERT INTO tap_test VALUES ('b')");
      c.commit();
      WireTap.Counts counts = tap.counts();
      assertThat(counts.roundTrips()).isEqualTo(3);
      assertThat(counts.statements()).isEqualTo(4); // BEGIN, INSERT, INSERT, COMMIT
      assertThat(counts.commits()).isEqualTo(1);
    }
  }

  @Test
  void rolledBackTransaction_commitsNothing() throws Exception {
    try (WireTap tap = new WireTap(5432); Connection c = through(tap); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      tap.reset();
      s.execute("SELECT 1");
      c.rollback();
      WireTap.Counts counts = tap.counts();
      assertThat(counts.roundTrips()).isEqualTo(2);
      assertThat(counts.commits()).isZero();
    }
  }
}
