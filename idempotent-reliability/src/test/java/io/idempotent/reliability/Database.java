package io.idempotent.reliability;

import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A database the suite runs on: embedded H2, or the PostgreSQL / MariaDB server on 127.0.0.1 (addresses
 * overridable by {@code idempotent.test.postgres.url} etc.). An unreachable server skips its tests with
 * the reason, or fails them when {@code idempotent.requireServers=true}, as CI runs them.
 */
enum Database {
  H2("H2", "jdbc:h2:file:./target/h2/reliability;LOCK_TIMEOUT=10000", "sa", "", null),
  POSTGRES("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/idempotent_test", "idempotent", "idempotent", "postgres"),
  MARIADB("MariaDB", "jdbc:mariadb://127.0.0.1:3306/idempotent_test", "idempotent", "idempotent", "mariadb");

  /** The record table every test of this suite uses (apart from other modules' tables). */
  static final String TABLE = "rel_idempotency";

  final String label;
  final String url;
  final String user;
  final String password;
  private final String propertyId;
  private String unreachable;

  Database(String label, String url, String user, String password, String propertyId) {
    this.label = label;
    String p = "idempotent.test." + propertyId + ".";
    this.url = propertyId == null ? url : System.getProperty(p + "url", url);
    this.user = propertyId == null ? user : System.getProperty(p + "user", user);
    this.password = propertyId == null ? password : System.getProperty(p + "password", password);
    this.propertyId = propertyId;
  }

  static Stream<Database> all() {
    return Stream.of(values());
  }

  static Stream<Database> servers() {
    return Stream.of(POSTGRES, MARIADB);
  }

  /** Skips the calling test when the server is unreachable, or fails it when servers are required. */
  void requireReachable() {
    String problem = unreachable();
    if (!problem.isEmpty()) {
      skipOrFail(problem);
    }
  }

  /** Skips the calling test for {@code problem}, or fails it when servers are required (as in CI). */
  static void skipOrFail(String problem) {
    if (Boolean.getBoolean("idempotent.requireServers")) {
      fail(problem + " Servers are required (idempotent.requireServers=true).");
    }
    Assumptions.abort("Skipped: " + problem);
  }

  private synchronized String unreachable() {
    if (unreachable == null) {
      unreachable = "";
      if (propertyId != null) {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
          c.isValid(5);
        } catch (SQLException e) {
          unreachable = label + " is not reachable at " + url + " as user " + user + " (" + e.getMessage() + ")."
              + " Run .ci/setup-databases.sh, or point idempotent.test." + propertyId + ".url/user/password elsewhere.";
          System.err.println("[idempotent-reliability tests] " + unreachable);
        }
      }
    }
    return unreachable;
  }

  /** A pool of its own, as one application instance has; the caller closes it. */
  HikariDataSource newPool(int size, String name) {
    return newPool(size, name, url);
  }

  /** A pool on another URL of the same database (a fault proxy's port); the caller closes it. */
  HikariDataSource newPool(int size, String name, String jdbcUrl) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("rel-" + label + "-" + name);
    hc.setJdbcUrl(jdbcUrl);
    hc.setUsername(user);
    hc.setPassword(password);
    hc.setMaximumPoolSize(size);
    hc.setMinimumIdle(Math.min(1, size));
    return new HikariDataSource(hc);
  }

  @Override
  public String toString() {
    return label;
  }
}
