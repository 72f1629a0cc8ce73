package io.idempotent;

import org.jspecify.annotations.Nullable;

/**
 * A stored outcome could not be encoded or decoded as the method's declared type (for example a
 * result that cannot be serialized, or a stored row that names another type). Nothing ran twice.
 */
public final class IdempotencyResultException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyResultException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
