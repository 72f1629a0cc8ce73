package io.idempotent.assemblies;

import com.zaxxer.hikari.HikariConfig;
import io.idempotent.testservers.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The databases the suite runs on: an in-memory H2 of each group's own, and the test kit's PostgreSQL and
 * MariaDB servers (reached, or their cells skipped, through {@link TestServers}).
 */
enum Database {
  H2("H2", null),
  POSTGRESQL("PostgreSQL", TestServers.POSTGRES),
  MARIADB("MariaDB", TestServers.MARIADB);

  final String label;
  /** The server; null for the embedded database. */
  private final TestServers.DatabaseServer server;

  Database(String label, TestServers.DatabaseServer server) {
    this.label = label;
    this.server = server;
  }

  boolean isServer() {
    return server != null;
  }

  /** Skips the calling test when the server is unreachable (one line per server), or fails it when required. */
  void requireReachable() {
    if (server != null) {
      server.requireReachable();
    }
  }

  /** Points {@code hc} at this database; {@code h2Name} names the in-memory database of a group. */
  void connect(HikariConfig hc, String h2Name) {
    hc.setJdbcUrl(url(h2Name));
    hc.setUsername(user());
    hc.setPassword(password());
  }

  /** A connection outside every pool, committing each statement. The caller closes it. */
  Connection connect(String h2Name) throws SQLException {
    return DriverManager.getConnection(url(h2Name), user(), password());
  }

  private String url(String h2Name) {
    // a lock held by another caller's open transaction is waited for, as on the servers
    return server == null ? "jdbc:h2:mem:" + h2Name + ";LOCK_TIMEOUT=10000" : server.url;
  }

  private String user() {
    return server == null ? "sa" : server.user;
  }

  private String password() {
    return server == null ? "" : server.password;
  }

  /** The statement that makes {@code level} the session's default isolation level. */
  String sessionIsolation(String level) {
    return this == MARIADB ? "SET SESSION TRANSACTION ISOLATION LEVEL " + level
        : "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level;
  }

  /** How long the server lets a session idle in a transaction under {@link ServerSetting#IDLE_TIMEOUT}. */
  Duration idleTimeout() {
    return this == MARIADB ? Duration.ofSeconds(1) : Duration.ofMillis(500); // MariaDB counts whole seconds
  }

  /** The statement that sets {@link #idleTimeout()} on a session. */
  String sessionIdleTimeout() {
    return switch (this) {
      case POSTGRESQL -> "SET idle_in_transaction_session_timeout = '" + idleTimeout().toMillis() + "ms'";
      case MARIADB -> "SET SESSION idle_transaction_timeout = " + idleTimeout().toSeconds();
      case H2 -> throw new IllegalStateException("H2 has no idle-in-transaction timeout");
    };
  }
}
