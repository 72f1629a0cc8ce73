package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;
import java.time.Duration;

/**
 * The bounds every TTL, lease and wait timeout must keep, checked once where a duration enters the
 * library (annotation, programmatic call, configuration, token lifetime), the same for every store.
 *
 * <ul>
 *   <li>A lease of at least {@link #MIN_LEASE}: the renewer renews at a third of the lease, and the
 *       renewal must reach the store within the remaining two thirds. Measured, not argued
 *       ({@code LeaseFloorTest}, docs/RELIABILITY.md): with busy threads on every core and the collector
 *       busy, renewals came up to 523 ms apart, and leases of 100 and 250 ms were lost on PostgreSQL and
 *       Redis (a duplicate ran beside the owner); one second leaves 667 ms for a late renewal.
 *   <li>A lease and a wait timeout of at most {@link #MAX_LEASE}: a lease is how long a key stays
 *       locked after its owner died, so a longer one locks keys out for good.
 *   <li>A TTL of at most {@link #MAX_TTL}, so that a deadline computed from any clock in nanoseconds
 *       or milliseconds cannot overflow.
 * </ul>
 */
public final class DurationLimits {

  public static final Duration MIN_LEASE = Duration.ofSeconds(1);
  public static final Duration MAX_LEASE = Duration.ofDays(1);
  public static final Duration MAX_TTL = Duration.ofDays(3650);

  private DurationLimits() {}

  /** A TTL (or token lifetime) within (0, {@link #MAX_TTL}]. */
  public static Duration ttl(Duration d, String what) {
    return within(d, Duration.ofNanos(1), MAX_TTL, what, "");
  }

  /** A lease within [{@link #MIN_LEASE}, {@link #MAX_LEASE}]. */
  public static Duration lease(Duration d, String what) {
    return within(d, MIN_LEASE, MAX_LEASE, what,
        "; the lease is renewed at a third of its length while the call runs, so a shorter one lets a"
            + " duplicate take over a running call, and a longer one locks the key after a crash");
  }

  /** A wait timeout within (0, {@link #MAX_LEASE}]. */
  public static Duration waitTimeout(Duration d, String what) {
    return within(d, Duration.ofNanos(1), MAX_LEASE, what, "");
  }

  private static Duration within(Duration d, Duration min, Duration max, String what, String why) {
    if (d == null) {
      return null;
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      String range = min.toNanos() == 1 ? "positive and at most " + max : "between " + min + " and " + max;
      throw new IdempotencyConfigurationException(what + " is " + d + "; it must be " + range + why);
    }
    return d;
  }
}
