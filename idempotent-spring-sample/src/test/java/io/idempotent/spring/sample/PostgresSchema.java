package io.idempotent.spring.sample;

import io.idempotent.testservers.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A schema of its own on the PostgreSQL test server, for one test class: the application's tables and its
 * idempotency table are created in it (its name is the connection's {@code currentSchema}), apart from
 * every other test's, and it is dropped with all it holds at the end.
 */
final class PostgresSchema {

  final String name = "sample_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

  private PostgresSchema() {}

  /** Creates a new schema; skips the calling test (or fails it when servers are required) if the server is unreachable. */
  static PostgresSchema create() {
    TestServers.POSTGRES.requireReachable();
    PostgresSchema schema = new PostgresSchema();
    schema.execute("CREATE SCHEMA " + schema.name);
    return schema;
  }

  /** The JDBC URL whose connections create and find tables in this schema. */
  String url() {
    String url = TestServers.POSTGRES.url;
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
  }

  /** The Spring Boot arguments that point an instance of the application at this schema. */
  String[] datasourceArguments() {
    return new String[] {"--spring.datasource.url=" + url(), "--spring.datasource.username=" + TestServers.POSTGRES.user,
        "--spring.datasource.password=" + TestServers.POSTGRES.password};
  }

  void drop() {
    execute("DROP SCHEMA " + name + " CASCADE");
  }

  private void execute(String sql) {
    try (Connection c = TestServers.POSTGRES.connect(); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
