package io.idempotent;

/** What happens when a key or scope expression evaluates to null or blank. */
public enum MissingKeyPolicy {
  /** Do not run; throw {@link IdempotencyKeyException}. */
  REJECT,
  /** Run the method without protection and report {@link CallOutcome#UNPROTECTED}. */
  RUN_UNPROTECTED
}
