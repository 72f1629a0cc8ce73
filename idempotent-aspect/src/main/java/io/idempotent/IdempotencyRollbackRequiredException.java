package io.idempotent;

import org.jspecify.annotations.Nullable;

/**
 * The method ran inside the caller's transaction, but its outcome could not be recorded there (the claim
 * was lost after its lease ran out, or the statement failed): that transaction holds the method's writes
 * and must roll back, or they would commit twice or without their record. Thrown by a store that writes
 * outcomes inside the caller's transaction; the engine passes it on to the caller unchanged.
 */
public final class IdempotencyRollbackRequiredException extends IdempotencyStoreException {
  private static final long serialVersionUID = 1L;

  public IdempotencyRollbackRequiredException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
