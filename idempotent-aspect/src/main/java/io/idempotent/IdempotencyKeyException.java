package io.idempotent;

/** The key (or scope) expression produced no usable value: null or blank. The method did not run. */
public final class IdempotencyKeyException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyException(String message) {
    super(message);
  }

  /** With {@code cause}: what the key expression threw. */
  public IdempotencyKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
