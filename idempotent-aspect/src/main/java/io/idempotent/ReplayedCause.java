package io.idempotent;

/**
 * Stands for the cause of a replayed final exception: the original cause's class name and message, and
 * its own cause in turn, without stack trace or state. A replay never instantiates the original cause's
 * class (stored data does not name classes to build), so this description is what comes back. Its
 * {@link #toString()} reads like the original's. Immutable.
 */
public final class ReplayedCause extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String originalType;

  public ReplayedCause(String originalType, String message, ReplayedCause cause) {
    super(message, cause, false, false);
    this.originalType = originalType;
  }

  /** The class name of the original cause. */
  public String originalType() {
    return originalType;
  }

  @Override
  @SuppressWarnings("OverrideThrowableToString") // shown as the original exception was: its type, not this one's
  public String toString() {
    String message = getLocalizedMessage();
    return message != null ? originalType + ": " + message : originalType;
  }
}
