package io.idempotent;

/**
 * Base of every exception this library throws. Carries the key namespace and, where a key was
 * resolved, a short non-reversible reference to it; never the argument values.
 */
public abstract class IdempotencyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  protected IdempotencyException(String message) {
    super(message);
  }

  protected IdempotencyException(String message, Throwable cause) {
    super(message, cause);
  }
}
