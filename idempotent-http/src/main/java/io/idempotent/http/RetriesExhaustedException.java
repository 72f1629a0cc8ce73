package io.idempotent.http;

import java.io.IOException;

/**
 * No attempt of a retried operation got an answer (connection refused, timed out, reset) before attempts
 * or time ran out. The cause is the last attempt's failure, the earlier ones are suppressed. The
 * operation may or may not have been done: retrying later with the same {@link #idempotencyKey()} is safe.
 */
public class RetriesExhaustedException extends IOException {

  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final String idempotencyKey;

  public RetriesExhaustedException(String message, int attempts, String idempotencyKey, IOException last) {
    super(message, last);
    this.attempts = attempts;
    this.idempotencyKey = idempotencyKey;
  }

  public int attempts() {
    return attempts;
  }

  public String idempotencyKey() {
    return idempotencyKey;
  }
}
