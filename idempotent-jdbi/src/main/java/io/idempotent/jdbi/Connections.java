package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Where the store's own short units of work get their connection: never one the caller has open, and
 * committed before they return. From a {@code DataSource} a unit costs one borrowed connection; from a
 * {@code Jdbi} alone (which does not hand out its connection factory) it also costs a handle.
 */
abstract class Connections {

  /** A unit of work on one connection. */
  @FunctionalInterface
  interface Work<R> {
    R run(Connection c) throws SQLException;
  }

  /** Runs {@code work} on a connection of its own and commits it (or rolls it back) before returning. */
  abstract <R> R run(Work<R> work);

  static Connections of(DataSource dataSource) {
    return new Connections() {
      @Override
      <R> R run(Work<R> work) {
        try (Connection c = dataSource.getConnection()) {
          return inTransaction(c, work);
        } catch (SQLException e) {
          throw failure(e);
        }
      }
    };
  }

  static Connections of(Jdbi jdbi) {
    return new Connections() {
      @Override
      <R> R run(Work<R> work) {
        try (Handle h = jdbi.open()) {
          Connection c = h.getConnection();
          if (c.getAutoCommit()) {
            return work.run(c);
          }
          return h.inTransaction(t -> {
            try {
              return work.run(t.getConnection());
            } catch (SQLException e) {
              throw new SqlWorkFailure(e);
            }
          });
        } catch (SqlWorkFailure e) {
          throw failure(e.sqlException());
        } catch (SQLException e) {
          throw failure(e);
        }
      }
    };
  }

  private static <R> R inTransaction(Connection c, Work<R> work) throws SQLException {
    if (c.getAutoCommit()) {
      return work.run(c);
    }
    try {
      R result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException | Error e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static IdempotencyStoreException failure(SQLException e) {
    return new IdempotencyStoreException("An SQL statement of the idempotency store failed (SQLState "
        + e.getSQLState() + ")", e);
  }

  /** Carries a checked SQLException through JDBI's transaction callback. */
  private static final class SqlWorkFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SqlWorkFailure(SQLException cause) {
      super(cause);
    }

    SQLException sqlException() {
      return (SQLException) getCause();
    }
  }
}
