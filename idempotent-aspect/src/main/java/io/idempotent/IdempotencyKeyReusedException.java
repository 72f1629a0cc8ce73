package io.idempotent;

import org.jspecify.annotations.Nullable;

/** The key was already used with different arguments (payload fingerprint differs). The method did not run. */
public final class IdempotencyKeyReusedException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyReusedException(String message) {
    super(message);
  }

  /** About the call {@code name} and its stored key {@code keyReference} (either may be null). */
  public IdempotencyKeyReusedException(String message, @Nullable Throwable cause, @Nullable String name, @Nullable String keyReference) {
    super(message, cause, name, keyReference);
  }
}
