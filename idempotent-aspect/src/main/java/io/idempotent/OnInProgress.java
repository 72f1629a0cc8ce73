package io.idempotent;

/** What a call does when it finds the same key claimed by a call that is still running. */
public enum OnInProgress {
  /** Throw {@link IdempotencyInProgressException} at once. */
  THROW,
  /**
   * Wait for the running call up to the wait timeout; then replay its outcome, run if it released the
   * key, or throw {@link IdempotencyInProgressException}.
   */
  WAIT,
  /** Return without running: {@code null}, or an empty {@code Optional}. For jobs; void, Optional or nullable results only. */
  SKIP
}
