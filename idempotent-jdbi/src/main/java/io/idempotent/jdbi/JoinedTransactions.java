package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * way to name the handle a thread works in.
 *
 * <p>It also remembers the keys whose outcome was written in each open transaction, with what releases
 * their claim: a rollback releases them, and so does a transaction that ends without JDBI running its
 * callbacks — a COMMIT that fails (a deferred constraint; JDBI then rolls back without its rollback
 * callbacks) or a handle closed with its transaction open — when its handle is closed. Releasing is
 * fenced by the owner token and the {@code IN_PROGRESS} state, so it can never undo a committed outcome.
 * A second claim of a remembered key inside the same transaction is answered at once instead of waiting
 * on that transaction's own row lock.
 *
 * <p>Thread-safe: each thread sees only the handles it opened itself; a handle used on another thread
 * than the one that opened it is not found there.
 */
final class JoinedTransactions implements HandleListener {

  private final ThreadLocal<List<Handle>> opened = ThreadLocal.withInitial(ArrayList::new);
  /** Keys whose outcome is written, uncommitted, in a handle's transaction, with what releases each claim. */
  private final Map<Handle, Map<String, Runnable>> joined = new ConcurrentHashMap<>();

  private JoinedTransactions() {}

  /** Starts listening to the handles {@code jdbi} creates from now on. */
  static JoinedTransactions on(Jdbi jdbi) {
    JoinedTransactions transactions = new JoinedTransactions();
    jdbi.getConfig(Handles.class).addListener(transactions);
    return transactions;
  }

  /** Stops listening to {@code jdbi}'s handles (the store is closed). */
  void stop(Jdbi jdbi) {
    jdbi.getConfig(Handles.class).removeListener(this);
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
    releaseAll(joined.remove(handle)); // the transaction ended without a commit JDBI reported
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

  /**
   * Notes, before it is written, that {@code storedKey}'s outcome goes into {@code h}'s open transaction:
   * unless that transaction commits, {@code release} runs once it has ended.
   */
  void joining(Handle h, String storedKey, Runnable release) {
    joined.computeIfAbsent(h, k -> {
      h.afterCommit(() -> joined.remove(h));
      h.afterRollback(() -> releaseAll(joined.remove(h)));
      return new ConcurrentHashMap<>();
    }).put(storedKey, release);
  }

  /** Whether {@code storedKey}'s outcome is written, uncommitted, in {@code h}'s open transaction. */
  boolean isJoined(Handle h, String storedKey) {
    Map<String, Runnable> keys = joined.get(h);
    return keys != null && keys.containsKey(storedKey);
  }

  private static void releaseAll(Map<String, Runnable> releases) {
    if (releases != null) {
      releases.values().forEach(Runnable::run);
    }
  }

  private static boolean inTransaction(Handle h) {
    try {
      return h.isInTransaction();
    } catch (RuntimeException e) {
      return false; // a broken connection holds no transaction the store could join
    }
  }
}
