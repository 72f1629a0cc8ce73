package io.idempotent;

import org.jspecify.annotations.Nullable;

/** A call with the same key is still running (its lease is alive). The method did not run again. */
public final class IdempotencyInProgressException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyInProgressException(String message) {
    super(message);
  }

  /** With {@code cause}: the interruption. */
  public IdempotencyInProgressException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** About the call {@code name} and its stored key {@code keyReference} (either may be null). */
  public IdempotencyInProgressException(String message, @Nullable Throwable cause, @Nullable String name, @Nullable String keyReference) {
    super(message, cause, name, keyReference);
  }
}
