package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import java.util.Locale;

/** How the table store's writes relate to the caller's own JDBI transaction. Immutable and thread-safe. */
public enum TransactionMode {
  /**
   * Every primitive (claim, complete, release, renew) runs on a handle of its own and commits at once,
   * never inside a transaction the caller happens to have open. The default.
   */
  INDEPENDENT,
  /**
   * The claim commits on its own (other instances must see it at once), but the completion record is
   * written inside the transaction that the calling thread has open on the same {@code Jdbi} (however it
   * was opened there), so the method's own writes and the completion commit or roll back together. When
   * that transaction ends without committing (a rollback, a failed commit), the claim is released so that
   * a retry runs again. A declared final failure is recorded on its own connection and committed at once:
   * it is the method's outcome whatever becomes of the transaction; actions registered with
   * {@link io.idempotent.spi.CallClaim#afterCommit} (a cache in front of the table) run only after the commit.
   * If the outcome cannot be recorded in that transaction (the claim was lost after its lease ran out,
   * or the statement failed), the call throws {@link io.idempotent.IdempotencyStoreException} so that
   * the transaction rolls back rather than commit the method's writes twice or without their record.
   * A method call made with no transaction open on the thread (on that {@code Jdbi}) is refused before
   * the method runs, unless the store was built with
   * {@link JdbiIdempotencyStore.Builder#requireTransaction requireTransaction(false)}, which records such
   * calls as {@link #INDEPENDENT} does; with transactions open on several handles of the thread the call
   * is refused too. A {@code CompletionStage} result that completes after the call returned is recorded as
   * {@link #INDEPENDENT} does.
   */
  JOINED,
  /**
   * The claim row is inserted in a transaction the store opens for the call, and stays uncommitted,
   * row-locked, while the method runs; the outcome is written in the same transaction, which then commits
   * once. A crash of the application or of the database before that commit leaves nothing behind, so a
   * retry runs the method again at once; the claim needs no lease renewal while it is open. The call
   * holds one connection from claim to commit. A duplicate finds the running claim without waiting for its
   * row lock (PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the key, taken before the
   * insert; MariaDB: the insert does not wait for a lock; H2: nor does it there) and is answered at once as
   * in progress: THROW throws, SKIP skips, WAIT polls without holding a connection. Two keys sharing a
   * hash may only make a call wait or be refused; the row written after the lock still decides who runs.
   * For short methods whose effects are in the database only. A {@code CompletionStage} result keeps the
   * transaction (and its connection) open until it completes. Not combinable with relaxed claim durability.
   */
  TRANSACTION_SCOPED,
  /**
   * As {@link #TRANSACTION_SCOPED}, but the claim row is inserted in the transaction the calling thread
   * has open (found as in {@link #JOINED}), and the outcome with it: the caller's business writes, the
   * claim and the outcome commit once, together, or not at all. The store takes no connection of its own
   * for the call. A rollback, or a crash before the commit, leaves neither the writes nor the claim. A
   * method that throws a declared final failure has that failure written in the caller's transaction too
   * (a claim on another connection would wait for the caller's own row lock), so it is kept only if that
   * transaction commits. A call with no transaction to join is refused before the method runs, unless
   * the store was built with {@link JdbiIdempotencyStore.Builder#requireTransaction requireTransaction(false)},
   * which records such calls as {@link #TRANSACTION_SCOPED} does.
   */
  JOINED_TRANSACTION_SCOPED;

  /** Whether the claim row stays uncommitted in the transaction that records the outcome. */
  boolean transactionScoped() {
    return this == TRANSACTION_SCOPED || this == JOINED_TRANSACTION_SCOPED;
  }

  /**
   * The mode a property value names ({@code independent}, {@code joined}, {@code transaction-scoped} or
   * {@code joined-transaction-scoped}, in any case, with hyphens or underscores), as
   * {@code idempotent.jdbi.mode} gives it.
   *
   * @throws IdempotencyConfigurationException naming the property and the values it takes
   */
  public static TransactionMode ofProperty(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(
          "Property idempotent.jdbi.mode is '" + value + "'; expected independent, joined,"
          + " transaction-scoped or joined-transaction-scoped");
    }
  }
}
