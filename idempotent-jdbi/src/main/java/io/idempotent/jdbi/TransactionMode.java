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
   * {@link JdbiIdempotencyStore#afterCommit} (a cache in front of the table) run only after the commit.
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
  JOINED;

  /**
   * The mode a property value names ({@code independent} or {@code joined}, in any case), as
   * {@code idempotent.jdbi.mode} gives it.
   *
   * @throws IdempotencyConfigurationException naming the property and the values it takes
   */
  public static TransactionMode ofProperty(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(
          "Property idempotent.jdbi.mode is '" + value + "'; expected independent or joined");
    }
  }
}
