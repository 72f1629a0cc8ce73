package io.idempotent.http;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RetryingHttpClient} retries one logical operation: at most {@code maxAttempts} attempts, all
 * within {@code deadline} of the first, waiting between them a random time between zero and an
 * exponentially growing bound ("full jitter": {@code initialBackoff}, twice that, four times, ... capped
 * at {@code maxBackoff}). A {@code Retry-After} in seconds on the answer raises the wait to at least
 * that, still capped at {@code maxBackoff}. Immutable.
 *
 * @param maxAttempts attempts in all, the first included (at least 1)
 * @param initialBackoff the bound of the first wait
 * @param maxBackoff the largest bound of any wait
 * @param deadline how long after the first attempt started no attempt begins any more; each attempt's
 *     timeout is cut to what is left of it
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration deadline) {

  /** 4 attempts, waits bounded by 0.5 s, 1 s, 2 s (at most 8 s), within 30 s. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(4, Duration.ofMillis(500), Duration.ofSeconds(8), Duration.ofSeconds(30));

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    Objects.requireNonNull(deadline, "deadline");
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0 || deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("Need 0 <= initialBackoff <= maxBackoff and a positive deadline: "
          + initialBackoff + ", " + maxBackoff + ", " + deadline);
    }
  }

  /** Whether an answer with this status is worth another attempt: 409 (still in progress) and 5xx. */
  public static boolean retryable(int status) {
    return status == 409 || status >= 500;
  }

  /**
   * The bound of the wait after the {@code failures}-th failed attempt (1 for the first):
   * {@code min(maxBackoff, initialBackoff * 2^(failures-1))}.
   */
  public Duration backoffBound(int failures) {
    Duration bound = initialBackoff;
    for (int i = 1; i < failures && bound.compareTo(maxBackoff) < 0; i++) {
      bound = bound.multipliedBy(2);
    }
    return bound.compareTo(maxBackoff) > 0 ? maxBackoff : bound;
  }
}
