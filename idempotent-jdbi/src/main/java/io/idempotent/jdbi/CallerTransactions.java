package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the table store finds the transaction its caller has open, so that a transactional call's claim
 * and outcome are written in it and commit or roll back with the method's own writes, and an undeclared
 * call made inside one is recognised. The store watches its {@code Jdbi}'s handles by default; a
 * transaction manager of another framework (Spring's, in {@code idempotent-spring-boot-starter}) plugs in
 * here through {@link JdbiIdempotencyStore.Builder#callerTransactions}.
 *
 * <p>Implementations must be thread-safe; each thread sees only its own transaction.
 */
public interface CallerTransactions {

  /**
   * The transaction the calling thread has open on the store's database, or null when it has none the
   * store can join.
   *
   * @throws IdempotencyStoreException when the thread has several, so that no single one can be joined
   */
  @Nullable Transaction current();

  /**
   * What the store can join, for messages: "transaction open on the store's Jdbi (…)", completing "the
   * calling thread has no …".
   */
  String joinable();

  /**
   * A transaction the calling thread has open that the store cannot write in (one on another resource), for
   * a message ("Spring-managed transaction on another resource"), or null when there is none or none can be
   * seen. The default sees none.
   */
  default @Nullable String unjoinable() {
    return null;
  }

  /** Stops watching (the store is closed). */
  default void stop() {}

  /** One open transaction, as the store uses it. */
  interface Transaction {

    /** The transaction's connection: what is written on it commits or rolls back with the transaction. */
    Connection connection();

    /**
     * Notes, before it is written, that {@code storedKey}'s outcome goes into this transaction: unless the
     * transaction commits, {@code release} runs once it has ended (after the end, on the store's own
     * connection; releasing is fenced by the owner token, so it never undoes a committed outcome).
     */
    void joining(String storedKey, Runnable release);

    /** Whether {@code storedKey}'s outcome is written, uncommitted, in this transaction. */
    boolean isJoined(String storedKey);

    /** Runs {@code action} once this transaction has committed; never if it ends otherwise. */
    void afterCommit(Runnable action);
  }

  /**
   * What one open transaction holds for the store: the claims to release unless it commits, and the
   * actions to run once it has. A {@link Transaction} keeps one per open transaction, passes
   * {@link Transaction#joining}, {@link Transaction#isJoined} and {@link Transaction#afterCommit} to it, and
   * calls {@link #ended} once the transaction is over. Used by the transaction's own thread.
   */
  final class Joined {
    private final Map<String, Runnable> releases = new ConcurrentHashMap<>();
    private final List<Runnable> afterCommit = new ArrayList<>();

    public void joining(String storedKey, Runnable release) {
      releases.put(storedKey, release);
    }

    public boolean isJoined(String storedKey) {
      return releases.containsKey(storedKey);
    }

    public void afterCommit(Runnable action) {
      afterCommit.add(action);
    }

    /**
     * The transaction is over: after a commit the actions run, after any other end (a rollback, a failed or
     * unknown commit) the releases do, at once, so that a reused connection never carries them into a
     * later transaction. Either way both are forgotten.
     */
    public void ended(boolean committed) {
      List<Runnable> run = committed ? new ArrayList<>(afterCommit) : new ArrayList<>(releases.values());
      releases.clear();
      afterCommit.clear();
      run.forEach(Runnable::run);
    }
  }
}
