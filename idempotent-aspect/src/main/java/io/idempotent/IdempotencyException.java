package io.idempotent;

import org.jspecify.annotations.Nullable;

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

  private final @Nullable String name;
  private final @Nullable String keyReference;

  protected IdempotencyException(String message) {
    this(message, null, null, null);
  }

  protected IdempotencyException(String message, @Nullable Throwable cause) {
    this(message, cause, null, null);
  }

  /**
   * @param name the name of the call this is about (as in {@link IdempotencyEvent#name()}), or null
   * @param keyReference the short reference to its stored key (as in {@link IdempotencyEvent#keyReference()}),
   *     or null
   */
  protected IdempotencyException(String message, @Nullable Throwable cause, @Nullable String name, @Nullable String keyReference) {
    super(message, cause);
    this.name = name;
    this.keyReference = keyReference;
  }

  /** The name of the call this is about (the method's or the programmatic call's), or null if none. */
  public @Nullable String name() {
    return name;
  }

  /**
   * A short, non-reversible reference to the stored key this is about, the same as the events' {@link
   * IdempotencyEvent#keyReference()}, or null when it is about no key (a missing key, a configuration).
   */
  public @Nullable String keyReference() {
    return keyReference;
  }
}
