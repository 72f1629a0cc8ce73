package io.idempotent;

import org.jspecify.annotations.Nullable;

/**
 * The store could not be reached or failed. Before the method ran this means it did not run (fail
 * closed); after it ran, the outcome could not be recorded and the message says so.
 */
public class IdempotencyStoreException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyStoreException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  public IdempotencyStoreException(String message) {
    super(message);
  }

  /** About the call {@code name} and its stored key {@code keyReference} (either may be null). */
  public IdempotencyStoreException(String message, @Nullable Throwable cause, @Nullable String name, @Nullable String keyReference) {
    super(message, cause, name, keyReference);
  }
}
