package io.idempotent.jdbi;

import java.sql.Connection;
import java.sql.SQLException;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.jspecify.annotations.Nullable;

/**
 * The lock timeout of an embedded H2 session, read and set on the session itself. H2's {@code SET}
 * commands, {@code SET LOCK_TIMEOUT} among them, clear every session's cache of parsed statements, so
 * that each statement after one is parsed again (measured: a read then costs 22 µs instead of 3.5 µs); a
 * claim that set the timeout by SQL twice per call would slow every statement of the database. Only
 * loaded where the dialect is H2, so H2 is on the class path. Stateless.
 */
final class H2Sessions {

  private H2Sessions() {}

  /**
   * The embedded session behind {@code c}, or null where there is none to reach (a client of an H2
   * server, a pool that does not unwrap): the caller then sets the timeout by SQL.
   */
  static @Nullable SessionLocal embedded(Connection c) {
    try {
      if (c.isWrapperFor(JdbcConnection.class)
          && c.unwrap(JdbcConnection.class).getSession() instanceof SessionLocal local) {
        return local;
      }
    } catch (SQLException | LinkageError e) {
      // not reachable: the SQL way is taken
    }
    return null;
  }
}
