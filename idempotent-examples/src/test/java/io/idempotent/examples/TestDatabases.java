package io.idempotent.examples;

import io.idempotent.testkit.TestDatabaseAccounts;
import io.idempotent.testkit.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

/**
 * Databases the tests play the scenarios on: a fresh in-memory H2 database, or a fresh schema on the
 * PostgreSQL server the project's tests use (address overridable with {@code
 * idempotent.test.postgres.url/user/password}). An unreachable server skips the test, or fails it when
 * {@code idempotent.requireServers=true}.
 */
public final class TestDatabases {

  static final String POSTGRES_URL = System.getProperty("idempotent.test.postgres.url",
      "jdbc:postgresql://127.0.0.1:5432/idempotent_test");
  static final String POSTGRES_USER = System.getProperty("idempotent.test.postgres.user", "idempotent");
  static final String POSTGRES_PASSWORD = System.getProperty("idempotent.test.postgres.password", "idempotent");

  private TestDatabases() {}

  /** Settings for a new, empty in-memory H2 database (it lives while a connection to it is open). */
  public static Map<String, String> freshH2() {
    return Map.of("url", "jdbc:h2:mem:shop-" + UUID.randomUUID() + ";LOCK_TIMEOUT=10000", "user", "sa");
  }

  /** A new, empty schema on the PostgreSQL server; drop it with {@link #dropPostgresSchema}. */
  public static String createPostgresSchema() {
    requirePostgres();
    String schema = "shop_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    executeOnPostgres("CREATE SCHEMA " + schema);
    return schema;
  }

  /** Settings for the store and the shop's tables in {@code schema}. */
  public static Map<String, String> postgres(String schema) {
    String url = POSTGRES_URL + (POSTGRES_URL.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    return Map.of("url", url, "user", POSTGRES_USER, "password", POSTGRES_PASSWORD);
  }

  public static void dropPostgresSchema(String schema) {
    executeOnPostgres("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  private static void executeOnPostgres(String sql) {
    try (Connection c = DriverManager.getConnection(POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /**
   * Skips the calling test when PostgreSQL is unreachable, or fails it when servers are required. The test
   * user and database are created through the administrator account first where they are missing.
   */
  public static void requirePostgres() {
    TestServers.requireReachable("PostgreSQL " + POSTGRES_URL, () -> TestDatabaseAccounts.provision("PostgreSQL",
        POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD,
        System.getProperty("idempotent.test.postgres.adminUser", "postgres"),
        System.getProperty("idempotent.test.postgres.adminPassword", "")));
  }
}
