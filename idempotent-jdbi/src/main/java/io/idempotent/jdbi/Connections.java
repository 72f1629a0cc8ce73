package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * Where the store's own short units of work get their connection: never one the caller has open, and
 * committed before they return. From a {@code DataSource} a unit costs one borrowed connection; from a
 * {@code Jdbi} alone (which does not hand out its connection factory) it also costs a handle.
 */
abstract class Connections {

  /** The default bound of one of the store's own operations: the wait for a connection, and for each reply. */
  static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);

  /** A unit of work on one connection. */
  @FunctionalInterface
  interface Work<R> {
    @Nullable R run(Connection c) throws SQLException;
  }

  private final Duration timeout;
  private final long timeoutNanos;
  private final int timeoutMillis;
  /** What the store's connections come from, for messages. */
  private final String source;
  /** Set once a driver refuses {@code setNetworkTimeout} (H2 in its own process has no network to time). */
  private volatile boolean networkTimeoutUnsupported;
  private final Reachability reachability = new Reachability();

  private Connections(Duration timeout, Object source) {
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    String s = String.valueOf(source);
    this.source = s.length() > 120 ? s.substring(0, 120) + "…" : s;
  }

  /** Runs {@code work} on a connection of its own and commits it (or rolls it back) before returning. */
  final <R> R run(Work<R> work) {
    return run(work, true);
  }

  /**
   * As {@link #run(Work)}; with {@code pausable} false it is not refused while the database is taken for
   * unreachable ({@link Reachability}) but waits for a connection as long as the operation timeout: for
   * the operations that keep a running call's claim (renewals) and record an outcome already produced, which
   * run on few threads, and which a pool that a burst of callers exhausted must not starve of their turn.
   */
  abstract <R> R run(Work<R> work, boolean pausable);

  /** A connection kept across several calls of the store (a transaction-scoped claim); closing gives it back. */
  interface Held extends AutoCloseable {
    Connection connection();

    @Override
    void close();
  }

  /** Borrows a connection that the caller keeps until it closes the returned {@link Held}. */
  abstract Held hold();

  /**
   * Connections borrowed from {@code dataSource}, each operation bounded by {@code timeout}: the wait for
   * a connection (whatever the pool's own timeout) and, where the driver supports it, each wait for a
   * reply ({@link Connection#setNetworkTimeout}, put back as it was before the connection is returned).
   */
  static Connections of(DataSource dataSource, Duration timeout) {
    return new Connections(timeout, dataSource) {
      @Override
      <R> R run(Work<R> work, boolean pausable) {
        Connection c = borrow(dataSource::getConnection, pausable);
        try (c) {
          int previous = limitReplies(c);
          try {
            return inTransaction(c, work);
          } finally {
            restoreReplies(c, previous);
          }
        } catch (SQLException e) {
          throw failed(failure(e));
        } catch (RuntimeException e) {
          throw failed(e);
        }
      }

      @Override
      Held hold() {
        Connection c = borrow(dataSource::getConnection, true);
        int previous = limitReplies(c);
        return new Held() {
          @Override
          public Connection connection() {
            return c;
          }

          @Override
          public void close() {
            restoreReplies(c, previous);
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

  /** As {@link #of(DataSource, Duration)}, through handles of {@code jdbi} (which does not hand out its connection factory). */
  static Connections of(Jdbi jdbi, Duration timeout) {
    return new Connections(timeout, jdbi) {
      @Override
      <R> R run(Work<R> work, boolean pausable) {
        // committed on the JDBC connection itself: JDBI treats a connection that arrives with auto-commit
        // off as enrolled in a transaction its owner manages, and would neither begin nor commit one
        Handle h = borrow(() -> JoinedTransactions.openOwn(jdbi), pausable);
        try (h) {
          Connection c = h.getConnection();
          int previous = limitReplies(c);
          try {
            return inTransaction(c, work);
          } finally {
            restoreReplies(c, previous);
          }
        } catch (SQLException e) {
          throw failed(failure(e));
        } catch (RuntimeException e) {
          throw failed(e);
        }
      }

      @Override
      Held hold() {
        Handle h = borrow(() -> JoinedTransactions.openOwn(jdbi), true);
        int previous = limitReplies(h.getConnection());
        return new Held() {
          @Override
          public Connection connection() {
            return h.getConnection();
          }

          @Override
          public void close() {
            restoreReplies(h.getConnection(), previous);
            h.close();
          }
        };
      }
    };
  }

  /**
   * Waits for a connection (or a handle) at most the operation timeout; when {@code pausable}, fails at
   * once while the database is taken for unreachable ({@link Reachability}).
   */
  final <T> T borrow(AcquisitionDeadlines.Wait<T, SQLException> wait, boolean pausable) {
    if (pausable) {
      reachability.check();
    }
    T borrowed;
    long start = System.nanoTime();
    try {
      borrowed = AcquisitionDeadlines.within(timeoutNanos, wait);
    } catch (AcquisitionDeadlines.TimedOut | SQLException | RuntimeException e) {
      Throwable cause = e instanceof AcquisitionDeadlines.TimedOut ? e.getCause() : e;
      throw failed(noConnection(why(System.nanoTime() - start, cause), cause));
    }
    reachability.answered(); // a connection came: let every operation try (a dead one fails and pauses again)
    return borrowed;
  }

  /** Notes how a unit of work failed, for {@link Reachability}; returns {@code e}. */
  final <E extends Throwable> E failed(E e) {
    reachability.failed(e);
    return e;
  }

  /**
   * Why no connection came, for the message: past the operation timeout only when the pool held the
   * thread longer, checking its connections on it (HikariCP does, on a server that went silent).
   */
  private String why(long waitedNanos, @Nullable Throwable cause) {
    long waited = waitedNanos / 1_000_000;
    if (waitedNanos <= timeoutNanos + 250_000_000L) {
      return waited >= timeout.toMillis() ? "none came within the store's operation timeout of " + timeout
          : String.valueOf(cause == null ? null : cause.getMessage());
    }
    return "the pool held the call for " + waited + " ms, longer than the store's operation timeout of " + timeout
        + ", checking its connections on the calling thread; set the pool's own connection timeout no higher"
        + " (HikariCP: connectionTimeout; Spring Boot: spring.datasource.hikari.connection-timeout)";
  }

  private IdempotencyStoreException noConnection(String why, @Nullable Throwable cause) {
    return new NoConnection("The idempotency store got no database connection from " + source
        + " (" + why + "). The database may be unreachable, or the pool exhausted: size it for the calls that run"
        + " at the same time, each holding one connection of the store's while it claims or records, and a call"
        + " recorded on its own inside a transaction also the caller's (the pool sizing table of idempotent-jdbi's"
        + " README). The operation timeout (idempotent.jdbi.operation-timeout,"
        + " JdbiIdempotencyStore.Builder#operationTimeout, default " + DEFAULT_OPERATION_TIMEOUT + ") bounds the"
        + " wait", cause);
  }

  /**
   * Bounds each wait for a reply on {@code c} by the operation timeout; returns the connection's own
   * setting to put back, or -1 when it was left alone.
   */
  final int limitReplies(Connection c) {
    if (networkTimeoutUnsupported) {
      return -1;
    }
    try {
      int previous = c.getNetworkTimeout();
      if (previous == timeoutMillis) {
        return -1;
      }
      c.setNetworkTimeout(Runnable::run, timeoutMillis);
      return previous;
    } catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError e) {
      networkTimeoutUnsupported = true;
      return -1;
    } catch (SQLException e) {
      return -1; // a broken connection: the work on it fails and says why
    }
  }

  /** Puts back what {@link #limitReplies} changed; a connection that refuses goes back to its pool as it is. */
  private static void restoreReplies(Connection c, int previous) {
    if (previous >= 0) {
      try {
        c.setNetworkTimeout(Runnable::run, previous);
      } catch (SQLException | RuntimeException e) {
        // a broken connection: the pool discards it
      }
    }
  }

  // a unit of work may answer null (no row); its callers check for it, so the result passes on as it is
  @SuppressWarnings("NullAway")
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
