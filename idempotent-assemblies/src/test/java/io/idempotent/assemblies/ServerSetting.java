package io.idempotent.assemblies;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;

/** What a DBA or the application's pool configuration sets on every session of the pool. */
enum ServerSetting {
  READ_COMMITTED("READ COMMITTED"),
  REPEATABLE_READ("REPEATABLE READ"),
  SERIALIZABLE("SERIALIZABLE"),
  /** MariaDB only. */
  READ_UNCOMMITTED("READ UNCOMMITTED"),
  /** The pool hands out connections with auto-commit off; the server's default isolation level. */
  AUTOCOMMIT_OFF("autoCommit=false pool"),
  /**
   * As few connections as the callers need by the design's sizing: as many callers at once as the pool has
   * connections, one per caller, or fewer where each caller needs two (see {@link Expected#connectionsPerCaller}).
   */
  SMALL_POOL("small pool"),
  /**
   * PostgreSQL {@code idle_in_transaction_session_timeout} / MariaDB {@code idle_transaction_timeout} on every
   * session, and a method that runs longer than it. Only without a caller's transaction (the application's
   * own transaction would be ended by the server, which no library can help), and walked pairwise only.
   */
  IDLE_TIMEOUT("idle-in-transaction timeout");

  /** Connections in the pool of each instance, but for {@link #SMALL_POOL}. */
  static final int POOL_SIZE = 12;
  static final int SMALL_POOL_SIZE = 6;
  /** Callers at once in {@link Event#CONCURRENT_DUPLICATES}, but for {@link #SMALL_POOL}. */
  static final int CALLERS = 4;

  final String label;

  ServerSetting(String label) {
    this.label = label;
  }

  boolean appliesTo(Database database) {
    return switch (this) {
      case READ_UNCOMMITTED -> database == Database.MARIADB;
      case IDLE_TIMEOUT -> database != Database.H2;
      default -> true;
    };
  }

  /** Whether the setting needs a slow method: its cells take seconds, so they are few. */
  boolean slow() {
    return this == IDLE_TIMEOUT;
  }

  /** Whether the setting is a session isolation level. */
  boolean isolationLevel() {
    return this == READ_COMMITTED || this == REPEATABLE_READ || this == SERIALIZABLE || this == READ_UNCOMMITTED;
  }

  /** How long the method runs: past the idle timeout under {@link #IDLE_TIMEOUT}, else at once. */
  Duration methodPause(Database database) {
    return slow() ? database.idleTimeout().plusMillis(500) : Duration.ZERO;
  }

  /** Sets this on the pool of {@code database}. */
  void configure(HikariConfig hc, Database database) {
    hc.setMaximumPoolSize(this == SMALL_POOL ? SMALL_POOL_SIZE : POOL_SIZE);
    if (isolationLevel()) {
      hc.setConnectionInitSql(database.sessionIsolation(label));
    } else if (this == AUTOCOMMIT_OFF) {
      hc.setAutoCommit(false);
    } else if (this == IDLE_TIMEOUT) {
      hc.setConnectionInitSql(database.sessionIdleTimeout());
    }
  }

  /** How many callers send the same key at once under {@link Event#CONCURRENT_DUPLICATES}. */
  int concurrentCallers(Expected expected) {
    return this == SMALL_POOL ? Math.max(1, SMALL_POOL_SIZE / expected.connectionsPerCaller()) : CALLERS;
  }
}
