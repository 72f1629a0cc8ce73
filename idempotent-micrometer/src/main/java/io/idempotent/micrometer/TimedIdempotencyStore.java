package io.idempotent.micrometer;

import io.idempotent.Effects;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingCallClaim;
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
import java.util.function.Supplier;

/**
 * A store that times its data operations in {@link MicrometerIdempotency#STORE_OPERATIONS} and passes
 * every call on. The timers of successful operations are registered up front; those of failures when one
 * first happens. Thread-safe when the wrapped store is.
 */
final class TimedIdempotencyStore extends ForwardingIdempotencyStore {

  private final MeterRegistry meters;
  private final Clock clock;
  private final String store;
  private final Operation claim;
  private final Operation complete;
  private final Operation completeDetached;
  private final Operation release;
  private final Operation renew;
  private final Operation find;
  private final Operation purgeExpired;

  TimedIdempotencyStore(IdempotencyStore delegate, String store, MeterRegistry meters) {
    super(delegate);
    this.meters = meters;
    this.clock = meters.config().clock();
    this.store = store;
    this.claim = new Operation("claim");
    this.complete = new Operation("complete");
    this.completeDetached = new Operation("complete_detached");
    this.release = new Operation("release");
    this.renew = new Operation("renew");
    this.find = new Operation("find");
    this.purgeExpired = new Operation("purge_expired");
  }

  /** One operation's timers: of successes, registered up front, and of failures, when one first happens. */
  private final class Operation {
    private final String name;
    private final Timer succeeded;

    Operation(String name) {
      this.name = name;
      this.succeeded = timer(name, "success");
    }

    /** Runs {@code call} on the wrapped store, timed under this operation with the outcome it had. */
    <R> R time(Supplier<R> call) {
      long start = clock.monotonicTime();
      try {
        R result = call.get();
        succeeded.record(clock.monotonicTime() - start, TimeUnit.NANOSECONDS);
        return result;
      } catch (RuntimeException | Error e) {
        timer(name, "error").record(clock.monotonicTime() - start, TimeUnit.NANOSECONDS);
        throw e;
      }
    }
  }

  private Timer timer(String operation, String outcome) {
    return Timer.builder(MeterNames.STORE_OPERATIONS)
        .description("Operations of idempotency stores")
        .tag("store", store)
        .tag("operation", operation)
        .tag("outcome", outcome)
        .register(meters);
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return claim.time(() -> delegate().claim(key, fingerprint, owner, lease));
  }

  /** Timed as a claim, like {@link #claim}; the handle times how the call ends. */
  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    return claim.time(() -> super.claimForCall(key, fingerprint, owner, lease, effects));
  }

  @Override
  protected CallClaim forward(CallClaim call) {
    return new ForwardingCallClaim(call) {
      @Override
      public boolean complete(StoredOutcome outcome, Duration ttl) {
        return complete.time(() -> super.complete(outcome, ttl));
      }

      @Override
      public boolean completeDetached(StoredOutcome outcome, Duration ttl) {
        return completeDetached.time(() -> super.completeDetached(outcome, ttl));
      }

      @Override
      public boolean release() {
        return release.time(super::release);
      }

      @Override
      public boolean renew(Duration lease) {
        return renew.time(() -> super.renew(lease));
      }
    };
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return complete.time(() -> delegate().complete(key, owner, outcome, ttl));
  }

  @Override
  public boolean release(String key, String owner) {
    return release.time(() -> delegate().release(key, owner));
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    return renew.time(() -> delegate().renew(key, owner, lease));
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return find.time(() -> delegate().find(key));
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return purgeExpired.time(() -> delegate().purgeExpired(maxRecords));
  }

  @Override
  public String toString() {
    return "TimedIdempotencyStore[" + store + ": " + delegate() + "]";
  }
}
