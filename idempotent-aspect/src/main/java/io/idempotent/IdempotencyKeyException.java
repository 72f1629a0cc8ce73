package io.idempotent;

import org.jspecify.annotations.Nullable;

/** The key (or scope) expression produced no usable value: null or blank. The method did not run. */
public final class IdempotencyKeyException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyException(String message) {
    super(message);
  }

  /** With {@code cause}: what the key expression threw. */
  public IdempotencyKeyException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** About the call {@code name} and its stored key {@code keyReference} (either may be null). */
  public IdempotencyKeyException(String message, @Nullable Throwable cause, @Nullable String name, @Nullable String keyReference) {
    super(message, cause, name, keyReference);
  }
}
