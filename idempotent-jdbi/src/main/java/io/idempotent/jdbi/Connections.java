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

  /** A connection kept across several calls of the store (a transaction-scoped claim); closing gives it back. */
  interface Held extends AutoCloseable {
    Connection connection();

    @Override
    void close();
  }

  /** Borrows a connection that the caller keeps until it closes the returned {@link Held}. */
  abstract Held hold();

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

      @Override
      Held hold() {
        Connection c;
        try {
          c = dataSource.getConnection();
        } catch (SQLException e) {
          throw failure(e);
        }
        return new Held() {
          @Override
          public Connection connection() {
            return c;
          }

          @Override
          public void close() {
            try {
              c.close();
            } catch (SQLException e) {
              throw failure(e);
            }
          }
        };
      }
    };
  }

  static Connections of(Jdbi jdbi) {
    return new Connections() {
      @Override
      <R> R run(Work<R> work) {
        // committed on the JDBC connection itself: JDBI treats a connection that arrives with auto-commit
        // off as enrolled in a transaction its owner manages, and would neither begin nor commit one
        try (Handle h = JoinedTransactions.openOwn(jdbi)) {
          return inTransaction(h.getConnection(), work);
        } catch (SQLException e) {
          throw failure(e);
        }
      }

      @Override
      Held hold() {
        Handle h = JoinedTransactions.openOwn(jdbi);
        return new Held() {
          @Override
          public Connection connection() {
            return h.getConnection();
          }

          @Override
          public void close() {
            h.close();
          }
        };
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

  static IdempotencyStoreException failure(SQLException e) {
    return new IdempotencyStoreException("An SQL statement of the idempotency store failed (SQLState "
        + e.getSQLState() + ")", e);
  }
}
