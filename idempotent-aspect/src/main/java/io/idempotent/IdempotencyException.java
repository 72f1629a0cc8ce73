package io.idempotent;

/**
 * Base of the exceptions the library throws when it refuses a call or fails: the key is missing or
 * reused, the key is in progress, the store failed, a result could not be recorded or read, a one-time
 * token was refused, or the configuration is invalid. A method's own exceptions, and recreated final
 * exceptions, pass through as they are; store builders reject bad arguments with the JDK's unchecked
 * exceptions ({@code IllegalArgumentException} and the like). Messages may name the method or namespace
 * and a short non-reversible reference to the stored key ({@code key#…}), never the key itself or the
 * argument values.
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
