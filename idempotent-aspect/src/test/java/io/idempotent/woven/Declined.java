package io.idempotent.woven;

/** A business error that is final: it must be replayed, not retried. */
public class Declined extends RuntimeException {
  public Declined(String message) {
    super(message);
  }
}
