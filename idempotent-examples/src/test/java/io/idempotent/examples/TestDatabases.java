package io.idempotent.examples;

import io.idempotent.testservers.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

/**
 * Databases the tests play the scenarios on: a fresh in-memory H2 database, or a fresh schema on the kit's
 * PostgreSQL server ({@link TestServers#POSTGRES}, which reaches it or skips the test).
 */
public final class TestDatabases {

  private static final TestServers.DatabaseServer POSTGRES = TestServers.POSTGRES;

  private TestDatabases() {}

  /** Settings for a new, empty in-memory H2 database (it lives while a connection to it is open). */
  public static Map<String, String> freshH2() {
    return Map.of("url", "jdbc:h2:mem:shop-" + UUID.randomUUID() + ";LOCK_TIMEOUT=10000", "user", "sa");
  }

  /** A new, empty schema on the PostgreSQL server; drop it with {@link #dropPostgresSchema}. */
  public static String createPostgresSchema() {
    POSTGRES.requireReachable();
    String schema = "shop_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    executeOnPostgres("CREATE SCHEMA " + schema);
    return schema;
  }

  /** Settings for the store and the shop's tables in {@code schema}. */
  public static Map<String, String> postgres(String schema) {
    String url = POSTGRES.url + (POSTGRES.url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    return Map.of("url", url, "user", POSTGRES.user, "password", POSTGRES.password);
  }

  public static void dropPostgresSchema(String schema) {
    executeOnPostgres("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  private static void executeOnPostgres(String sql) {
    try (Connection c = POSTGRES.connect(); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
