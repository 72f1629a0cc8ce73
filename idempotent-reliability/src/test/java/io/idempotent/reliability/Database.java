package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testservers.TestServers;
import java.util.stream.Stream;

/**
 * A database the suite runs on: embedded H2, or the kit's PostgreSQL / MariaDB server ({@link TestServers},
 * which reaches it or skips the test), with pools as an application instance has them.
 */
enum Database {
  H2("H2", "jdbc:h2:file:./target/h2/reliability;LOCK_TIMEOUT=10000", "sa", "", null),
  POSTGRES(TestServers.POSTGRES),
  MARIADB(TestServers.MARIADB);

  /** The record table every test of this suite uses (apart from other modules' tables). */
  static final String TABLE = "rel_idempotency";

  final String label;
  final String url;
  final String user;
  final String password;
  /** The server behind it; null for the embedded database. */
  private final TestServers.DatabaseServer server;

  Database(String label, String url, String user, String password, TestServers.DatabaseServer server) {
    this.label = label;
    this.url = url;
    this.user = user;
    this.password = password;
    this.server = server;
  }

  Database(TestServers.DatabaseServer server) {
    this(server.name, server.url, server.user, server.password, server);
  }

  static Stream<Database> all() {
    return Stream.of(values());
  }

  static Stream<Database> servers() {
    return Stream.of(POSTGRES, MARIADB);
  }

  /** Skips the calling test when the server is unreachable, or fails it when servers are required. */
  void requireReachable() {
    if (server != null) {
      server.requireReachable();
    }
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
