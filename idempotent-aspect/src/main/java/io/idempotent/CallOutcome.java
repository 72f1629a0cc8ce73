package io.idempotent;

/** How an idempotent call produced what it returned, so callers can tell a replay from a fresh result. */
public enum CallOutcome {
  /** The method ran on this call. */
  EXECUTED,
  /** A recorded outcome was returned; the method did not run. */
  REPLAYED,
  /** The key was in progress elsewhere and the call returned without running ({@link OnInProgress#SKIP}). */
  SKIPPED,
  /** Idempotency was switched off or the key was missing and policy allowed running unprotected. */
  UNPROTECTED
}
