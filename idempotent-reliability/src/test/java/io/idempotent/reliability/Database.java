package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testkit.TestDatabaseAccounts;
import io.idempotent.testkit.TestServers;
import java.util.stream.Stream;

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

  /**
   * Skips the calling test when the server is unreachable, or fails it when servers are required. The test
   * user and database are created through the administrator account first where they are missing.
   */
  void requireReachable() {
    if (propertyId != null) {
      TestServers.requireReachable(label + " " + url, () -> TestDatabaseAccounts.provision(label, url, user, password,
          System.getProperty("idempotent.test." + propertyId + ".adminUser", this == POSTGRES ? "postgres" : "root"),
          System.getProperty("idempotent.test." + propertyId + ".adminPassword", "")));
    }
  }

  /** Skips the calling test for {@code problem}, or fails it when servers are required (as in CI). */
  static void skipOrFail(String problem) {
    TestServers.skipOrFail(problem, Boolean.getBoolean(TestServers.REQUIRE_SERVERS));
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
