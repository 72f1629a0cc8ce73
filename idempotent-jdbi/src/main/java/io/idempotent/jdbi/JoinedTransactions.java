package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleListener;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.DelegatingTransactionHandler;
import org.jdbi.v3.core.transaction.TransactionHandler;
import org.jspecify.annotations.Nullable;

/**
 * Finds the transaction the calling thread has open on one {@code Jdbi}, however it was opened: a
 * handle bound by {@code jdbi.inTransaction(…)}, or one from {@code jdbi.open()} on which the caller
 * called {@code begin()} or {@code useTransaction(…)}, or any handle of a pool whose connections come
 * with auto-commit off (JDBI treats those as enrolled in a transaction their owner manages). It listens to
 * every handle the {@code Jdbi} creates, but the store's own ({@link #openOwn}), and remembers which thread
 * opened each one still open; JDBI has no other way to name the handle a thread works in.
 *
 * <p>It also sees every transaction end, through a {@link TransactionHandler} that wraps the
 * {@code Jdbi}'s own: a COMMIT that succeeds, one that fails (a deferred constraint), a rollback. What
 * was joined to a transaction belongs to that transaction alone: the keys whose outcome it holds, with
 * what releases each claim, and the actions to run once it has committed. A successful commit runs the
 * actions; any other end releases the claims and drops the actions, at once, so that a handle reused for
 * a later transaction never carries them into it. A handle closed with its transaction open ends it the
 * same way. Releasing is fenced by the owner token and the {@code IN_PROGRESS} state, so it can never
 * undo a committed outcome. A second claim of a key joined to the open transaction is answered at once
 * instead of waiting on that transaction's own row lock.
 *
 * <p>Thread-safe: each thread finds only the handles it opened itself.
 */
final class JoinedTransactions implements HandleListener, CallerTransactions {

  /** Set while the store opens a handle of its own: such a handle never holds the caller's transaction. */
  private static final ThreadLocal<Boolean> OPENING_OWN = new ThreadLocal<>();

  /** Handles still open, each with the thread that opened it. */
  private final Map<Handle, HandleTransaction> open = new ConcurrentHashMap<>();
  /** The same handles by the thread that opened them: a claim looks only at its own thread's. */
  private final Map<Thread, Set<HandleTransaction>> byThread = new ConcurrentHashMap<>();
  private final Jdbi jdbi;
  /** What is joined to each handle's open transaction. */
  private final Map<Handle, Joined> joined = new ConcurrentHashMap<>();
  private volatile boolean stopped;

  private JoinedTransactions(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Starts watching the handles {@code jdbi} creates from now on, and their transactions. */
  static JoinedTransactions on(Jdbi jdbi) {
    JoinedTransactions transactions = new JoinedTransactions(jdbi);
    jdbi.setTransactionHandler(new Watching(jdbi.getTransactionHandler(), transactions));
    jdbi.getConfig(Handles.class).addListener(transactions);
    return transactions;
  }

  /**
   * Stops watching {@code jdbi} (the store is closed). The wrapping transaction handler stays in place,
   * since another may have wrapped it in turn, but it only passes calls on from now.
   */
  @Override
  public String joinable() {
    return "transaction open on the store's Jdbi (a transaction on another Jdbi instance, or one managed outside"
        + " JDBI, cannot be seen)";
  }

  @Override
  public void stop() {
    stopped = true;
    jdbi.getConfig(Handles.class).removeListener(this);
    open.clear();
    byThread.clear();
    joined.clear();
  }

  /**
   * Opens a handle of the store's own on {@code jdbi}, for a claim or a completion of its own. It is not
   * watched, so {@link #current} never takes it for the calling thread's transaction: a call nested in a
   * method whose claim the store holds open on it (transaction-scoped, without a transaction of the
   * caller's) must not join that claim's transaction, which rolls back if the outer method fails.
   */
  static Handle openOwn(Jdbi jdbi) {
    OPENING_OWN.set(Boolean.TRUE);
    try {
      return jdbi.open();
    } finally {
      OPENING_OWN.remove();
    }
  }

  @Override
  public void handleCreated(Handle handle) {
    if (!stopped && OPENING_OWN.get() == null) {
      HandleTransaction t = new HandleTransaction(handle, Thread.currentThread());
      open.put(handle, t);
      byThread.compute(t.thread, (thread, handles) -> { // atomic with the removal of an emptied set
        Set<HandleTransaction> set = handles != null ? handles : ConcurrentHashMap.newKeySet();
        set.add(t);
        return set;
      });
    }
  }

  @Override
  public void handleClosed(Handle handle) {
    HandleTransaction t = open.remove(handle);
    if (t != null) {
      byThread.computeIfPresent(t.thread, (thread, handles) -> {
        handles.remove(t);
        return handles.isEmpty() ? null : handles;
      });
    }
    ended(handle, false); // the transaction, if one was open, ended without a commit the store saw
  }

  /**
   * The handle whose transaction the calling thread has open, if any.
   *
   * @throws IdempotencyStoreException when the thread has transactions open on several handles, so that
   *     no single one can be joined
   */
  @Override
  public @Nullable Transaction current() {
    Set<HandleTransaction> mine = byThread.get(Thread.currentThread());
    if (mine == null) {
      return null;
    }
    HandleTransaction found = null;
    int count = 0;
    for (HandleTransaction t : mine) {
      if (inTransaction(t.handle)) {
        found = t;
        count++;
      }
    }
    if (count > 1) {
      throw new IdempotencyStoreException("The calling thread has " + count + " handles with an open transaction"
          + " on the idempotency store's Jdbi; the store cannot tell which one the call belongs to. Run the call"
          + " in a single transaction.");
    }
    return found;
  }

  /** A handle and the thread that opened it; what is joined to its open transaction is kept by handle. */
  private final class HandleTransaction implements Transaction {
    final Handle handle;
    final Thread thread;

    HandleTransaction(Handle handle, Thread thread) {
      this.handle = handle;
      this.thread = thread;
    }

    @Override
    public Connection connection() {
      return handle.getConnection();
    }

    @Override
    public void joining(String storedKey, Runnable release) {
      joined.computeIfAbsent(handle, k -> new Joined()).joining(storedKey, release);
    }

    @Override
    public boolean isJoined(String storedKey) {
      Joined j = joined.get(handle);
      return j != null && j.isJoined(storedKey);
    }

    @Override
    public void afterCommit(Runnable action) {
      joined.computeIfAbsent(handle, k -> new Joined()).afterCommit(action);
    }
  }

  private void ended(Handle h, boolean committed) {
    Joined j = joined.remove(h);
    if (j != null) {
      j.ended(committed);
    }
  }

  private static boolean inTransaction(Handle h) {
    try {
      return !h.isClosed() && h.isInTransaction();
    } catch (RuntimeException e) {
      return false; // a broken connection holds no transaction the store could join
    }
  }

  /** Passes every call on, and tells the store how each transaction of a watched handle ended. */
  private static final class Watching extends DelegatingTransactionHandler {
    private final JoinedTransactions transactions;

    Watching(TransactionHandler delegate, JoinedTransactions transactions) {
      super(delegate);
      this.transactions = transactions;
    }

    @Override
    public TransactionHandler specialize(Handle handle) throws SQLException {
      return new Watching(getDelegate().specialize(handle), transactions);
    }

    @Override
    public void commit(Handle handle) {
      try {
        super.commit(handle);
      } catch (RuntimeException | Error e) {
        transactions.ended(handle, false); // a failed COMMIT has rolled back (or left the outcome unknown)
        throw e;
      }
      transactions.ended(handle, true);
    }

    @Override
    public void rollback(Handle handle) {
      try {
        super.rollback(handle);
      } finally {
        transactions.ended(handle, false);
      }
    }
  }
}
