package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleListener;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;

/**
 * Finds the transaction the calling thread has open on one {@code Jdbi}, however it was opened: a
 * handle bound by {@code jdbi.inTransaction(…)}, or one from {@code jdbi.open()} on which the caller
 * called {@code begin()} or {@code useTransaction(…)}, or any handle of a pool whose connections come
 * with auto-commit off (JDBI treats those as enrolled in a transaction their owner manages). It listens to
 * every handle the {@code Jdbi} creates and remembers, per thread, those still open; JDBI has no other
 * way to name the handle a thread works in. It also remembers the keys whose outcome was written in
 * each open transaction, so that a second claim of one of them inside the same transaction is answered
 * at once instead of waiting on that transaction's own row lock.
 *
 * <p>Thread-safe: each thread sees only the handles it opened itself; a handle used on another thread
 * than the one that opened it is not found there.
 */
final class JoinedTransactions implements HandleListener {

  private final ThreadLocal<List<Handle>> opened = ThreadLocal.withInitial(ArrayList::new);
  /** Keys whose outcome is written, uncommitted, in a handle's transaction. */
  private final Map<Handle, Set<String>> written = new ConcurrentHashMap<>();

  private JoinedTransactions() {}

  /** Starts listening to the handles {@code jdbi} creates from now on. */
  static JoinedTransactions on(Jdbi jdbi) {
    JoinedTransactions transactions = new JoinedTransactions();
    jdbi.getConfig(Handles.class).addListener(transactions);
    return transactions;
  }

  @Override
  public void handleCreated(Handle handle) {
    List<Handle> mine = opened.get();
    mine.removeIf(Handle::isClosed); // handles closed on another thread are dropped here
    mine.add(handle);
  }

  @Override
  public void handleClosed(Handle handle) {
    opened.get().remove(handle);
    written.remove(handle);
  }

  /**
   * The handle whose transaction the calling thread has open, if any.
   *
   * @throws IdempotencyStoreException when the thread has transactions open on several handles, so that
   *     no single one can be joined
   */
  Optional<Handle> current() {
    List<Handle> mine = opened.get();
    mine.removeIf(Handle::isClosed);
    Handle found = null;
    int count = 0;
    for (Handle h : mine) {
      if (inTransaction(h)) {
        found = h;
        count++;
      }
    }
    if (count > 1) {
      throw new IdempotencyStoreException("The idempotency store is in JOINED mode, but the calling thread has "
          + count + " handles with an open transaction on its Jdbi; it cannot tell which one the call belongs"
          + " to. Run the call in a single transaction.");
    }
    return Optional.ofNullable(found);
  }

  /** Notes that {@code storedKey}'s outcome is written in {@code h}'s open transaction, until it ends. */
  void written(Handle h, String storedKey) {
    Set<String> keys = written.computeIfAbsent(h, k -> ConcurrentHashMap.newKeySet());
    if (keys.isEmpty()) {
      Runnable forget = () -> written.remove(h);
      h.afterCommit(forget);
      h.afterRollback(forget);
    }
    keys.add(storedKey);
  }

  /** Whether {@code storedKey}'s outcome is written, uncommitted, in {@code h}'s open transaction. */
  boolean isWritten(Handle h, String storedKey) {
    Set<String> keys = written.get(h);
    return keys != null && keys.contains(storedKey);
  }

  private static boolean inTransaction(Handle h) {
    try {
      return h.isInTransaction();
    } catch (RuntimeException e) {
      return false; // a broken connection holds no transaction the store could join
    }
  }
}
