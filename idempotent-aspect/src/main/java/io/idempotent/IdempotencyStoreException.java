package io.idempotent;

/**
 * The store could not be reached or failed. Before the method ran this means it did not run (fail
 * closed); after it ran, the outcome could not be recorded and the message says so.
 */
public final class IdempotencyStoreException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final boolean rollbackRequired;

  public IdempotencyStoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  public IdempotencyStoreException(String message) {
    this(message, null, false);
  }

  private IdempotencyStoreException(String message, Throwable cause, boolean rollbackRequired) {
    super(message, cause);
    this.rollbackRequired = rollbackRequired;
  }

  /**
   * For a store that writes the outcome inside the caller's transaction and could not: the engine
   * passes it to the caller so that the transaction, which holds the method's writes, rolls back.
   */
  public static IdempotencyStoreException rollbackRequired(String message, Throwable cause) {
    return new IdempotencyStoreException(message, cause, true);
  }

  /** Whether the caller's transaction must roll back (see {@link #rollbackRequired(String, Throwable)}). */
  public boolean isRollbackRequired() {
    return rollbackRequired;
  }
}
