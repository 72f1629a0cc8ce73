package io.idempotent;

/**
 * A one-time token was refused: unknown (never issued, or expired) or already used. Carries which, but
 * never the token itself.
 */
public final class IdempotencyTokenException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /** Why the token was refused. */
  public enum Reason {
    /** Never issued by this namespace, or past its lifetime. */
    UNKNOWN_OR_EXPIRED,
    /** Issued and already consumed. */
    ALREADY_USED
  }

  private final Reason reason;

  public IdempotencyTokenException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
