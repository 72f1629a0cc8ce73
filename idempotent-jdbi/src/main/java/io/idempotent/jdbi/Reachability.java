package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.io.EOFException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Whether the store's database answered its last operation. Once it did not — no connection came, or
 * a connection broke or went silent — the store's operations fail at once for {@value #PAUSE_MILLIS} ms
 * instead of each waiting its operation timeout (or longer, where a pool checks dead connections on the
 * borrowing thread); after that one operation tries again while the others still fail at once, and its
 * success lets them all through. So a store whose database is down answers every call quickly after the
 * first, and request threads do not pile up behind it. Failures of a statement (a constraint, a
 * serialization conflict) say nothing about reachability and change nothing. Thread-safe; an operation
 * costs one volatile read.
 */
final class Reachability {

  static final long PAUSE_MILLIS = 1_000;

  /** When operations may try again; 0 while the database answers. */
  private volatile long pausedUntil;
  /** Set while the one operation allowed through after a pause is under way. */
  private final AtomicBoolean probing = new AtomicBoolean();
  private volatile @Nullable Throwable lastFailure;

  /**
   * Refuses an operation at once while the database is taken for unreachable.
   *
   * @throws IdempotencyStoreException naming the failure that made it so
   */
  void check() {
    long until = pausedUntil;
    if (until == 0) {
      return;
    }
    if (System.nanoTime() - until < 0 || !probing.compareAndSet(false, true)) {
      throw new IdempotencyStoreException("The idempotency store's database did not answer its last operation;"
          + " until it does, the store's operations fail at once (one tries again every " + PAUSE_MILLIS + " ms)",
          lastFailure);
    }
  }

  /** The operation got its answer. */
  void answered() {
    if (pausedUntil != 0) {
      pausedUntil = 0;
      probing.set(false);
    }
  }

  /** The operation failed with {@code failure}: a failure to reach the database pauses the store's operations. */
  void failed(Throwable failure) {
    if (unreachable(failure)) {
      lastFailure = failure;
      pausedUntil = System.nanoTime() + PAUSE_MILLIS * 1_000_000L;
      probing.set(false);
    } else {
      answered(); // the database answered, with an error
    }
  }

  /**
   * No connection came ({@link NoConnection}), or the connection failed: SQLState class 08,
   * or a socket that timed out, reset or closed.
   */
  static boolean unreachable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof NoConnection || t instanceof SocketTimeoutException
          || t instanceof SocketException || t instanceof EOFException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
