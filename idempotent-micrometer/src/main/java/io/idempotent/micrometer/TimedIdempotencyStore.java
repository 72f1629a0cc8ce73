package io.idempotent.micrometer;

import io.idempotent.Effects;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A store that times its data operations in {@link MicrometerIdempotency#STORE_OPERATIONS} and passes
 * every call on. The timers of successful operations are registered up front; those of failures when one
 * first happens. Thread-safe when the wrapped store is.
 */
final class TimedIdempotencyStore extends ForwardingIdempotencyStore {

  private final MeterRegistry meters;
  private final Clock clock;
  private final String store;
  private final Timer claim;
  private final Timer complete;
  private final Timer completeDetached;
  private final Timer release;
  private final Timer renew;
  private final Timer find;
  private final Timer purgeExpired;

  TimedIdempotencyStore(IdempotencyStore delegate, String store, MeterRegistry meters) {
    super(delegate);
    this.meters = meters;
    this.clock = meters.config().clock();
    this.store = store;
    this.claim = timer("claim", "success");
    this.complete = timer("complete", "success");
    this.completeDetached = timer("complete_detached", "success");
    this.release = timer("release", "success");
    this.renew = timer("renew", "success");
    this.find = timer("find", "success");
    this.purgeExpired = timer("purge_expired", "success");
  }

  private Timer timer(String operation, String outcome) {
    return Timer.builder(MicrometerIdempotency.STORE_OPERATIONS)
        .description("Operations of idempotency stores")
        .tag("store", store)
        .tag("operation", operation)
        .tag("outcome", outcome)
        .register(meters);
  }

  private void succeeded(Timer timer, long start) {
    timer.record(clock.monotonicTime() - start, TimeUnit.NANOSECONDS);
  }

  private void failed(String operation, long start) {
    timer(operation, "error").record(clock.monotonicTime() - start, TimeUnit.NANOSECONDS);
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    long start = clock.monotonicTime();
    try {
      ClaimResult result = delegate().claim(key, fingerprint, owner, lease);
      succeeded(claim, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("claim", start);
      throw e;
    }
  }

  /** Timed as a claim, like {@link #claim}. */
  @Override
  public ClaimResult claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    long start = clock.monotonicTime();
    try {
      ClaimResult result = delegate().claimForCall(key, fingerprint, owner, lease, effects);
      succeeded(claim, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("claim", start);
      throw e;
    }
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    long start = clock.monotonicTime();
    try {
      boolean result = delegate().complete(key, owner, outcome, ttl);
      succeeded(complete, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("complete", start);
      throw e;
    }
  }

  @Override
  public boolean completeDetached(String key, String owner, StoredOutcome outcome, Duration ttl) {
    long start = clock.monotonicTime();
    try {
      boolean result = delegate().completeDetached(key, owner, outcome, ttl);
      succeeded(completeDetached, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("complete_detached", start);
      throw e;
    }
  }

  @Override
  public boolean release(String key, String owner) {
    long start = clock.monotonicTime();
    try {
      boolean result = delegate().release(key, owner);
      succeeded(release, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("release", start);
      throw e;
    }
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    long start = clock.monotonicTime();
    try {
      boolean result = delegate().renew(key, owner, lease);
      succeeded(renew, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("renew", start);
      throw e;
    }
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    long start = clock.monotonicTime();
    try {
      Optional<IdempotencyRecord> result = delegate().find(key);
      succeeded(find, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("find", start);
      throw e;
    }
  }

  @Override
  public int purgeExpired(int maxRecords) {
    long start = clock.monotonicTime();
    try {
      int result = delegate().purgeExpired(maxRecords);
      succeeded(purgeExpired, start);
      return result;
    } catch (RuntimeException | Error e) {
      failed("purge_expired", start);
      throw e;
    }
  }

  @Override
  public String toString() {
    return "TimedIdempotencyStore[" + store + ": " + delegate() + "]";
  }
}
