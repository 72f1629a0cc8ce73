package io.idempotent;

/** The key was already used with different arguments (payload fingerprint differs). The method did not run. */
public final class IdempotencyKeyReusedException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyReusedException(String message) {
    super(message);
  }
}
