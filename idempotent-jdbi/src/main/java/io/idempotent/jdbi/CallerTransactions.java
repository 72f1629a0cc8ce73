package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;

/**
 * Where a {@link TransactionMode#JOINED} store finds the transaction its caller has open, so that the
 * outcome is written in it and commits or rolls back with the method's own writes. The store watches
 * its {@code Jdbi}'s handles by default; a transaction manager of another framework (Spring's, in
 * {@code idempotent-spring-boot-starter}) plugs in here through
 * {@link JdbiIdempotencyStore.Builder#callerTransactions}.
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
  Transaction current();

  /**
   * What the store can join, for messages: "transaction open on the store's Jdbi (…)", completing "the
   * calling thread has no …".
   */
  String joinable();

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
}
