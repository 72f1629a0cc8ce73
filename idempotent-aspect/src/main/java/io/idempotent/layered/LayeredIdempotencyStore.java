package io.idempotent.layered;

import io.idempotent.Effects;
import io.idempotent.TimeSource;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.CallScopedClaims;
import io.idempotent.spi.ChangeSignals;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A cache in front of a store of record: the <em>near</em> store (in memory) holds copies of committed
 * COMPLETED outcomes, the <em>far</em> store (a SQL table) decides every claim. A replay found near
 * costs no round trip to the far store; a near miss is never final, it asks the far store. Calls in
 * progress in this JVM are tracked locally, so a duplicate of a call running here is answered without
 * a round trip and can wait for it without polling.
 *
 * <p>Only outcomes the far store has committed are copied near ({@link CallClaim#afterCommit}),
 * and a copy never outlives its far record: it is kept for the far record's remaining lifetime, less
 * the time the far call took.
 *
 * <p><b>When the far store is down</b>, claims fail ({@code IdempotencyStoreException}, nothing runs)
 * except for keys whose completed outcome is already near: those are still replayed, since replaying a
 * committed outcome needs no decision. Failures of the near store are logged and ignored.
 *
 * <p>Thread-safe. {@link #close()} closes both stores.
 */
public final class LayeredIdempotencyStore implements IdempotencyStore, CallScopedClaims, ChangeSignals, KeyLimits {

  private static final System.Logger LOG = System.getLogger("io.idempotent.layered");
  private static final int MIN_SWEEP_SIZE = 1024;
  /** Longer durations are the same as this one for local bookkeeping (about 146 years). */
  private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE / 2);

  private final IdempotencyStore near;
  private final IdempotencyStore far;
  private final ConcurrentHashMap<String, InFlight> inFlight = new ConcurrentHashMap<>();
  /** The in-flight map's size at which expired entries are next swept out (see {@link #sweepIfLarge}). */
  private final AtomicInteger sweepAt = new AtomicInteger(MIN_SWEEP_SIZE);

  /** A claim held by a call running in this JVM. */
  private record InFlight(String owner, String fingerprint, long deadline, CompletableFuture<Void> done) {
    boolean liveAt(long now) {
      return deadline - now > 0;
    }
  }

  private final TimeSource time;

  /** Keeps its local bookkeeping on {@link TimeSource#system()}. */
  public LayeredIdempotencyStore(IdempotencyStore near, IdempotencyStore far) {
    this(near, far, TimeSource.system());
  }

  /**
   * @param time the time source of the local bookkeeping (in-flight leases, the age of near copies):
   *     the one of the configuration this store is registered in
   *     ({@link io.idempotent.runtime.IdempotencyConfig.Builder#time}); a test that moves time by hand passes the
   *     same source here, to the configuration and to its in-memory stores
   */
  public LayeredIdempotencyStore(IdempotencyStore near, IdempotencyStore far, TimeSource time) {
    this.near = Objects.requireNonNull(near, "near");
    this.far = Objects.requireNonNull(far, "far");
    this.time = Objects.requireNonNull(time, "time");
  }

  /**
   * The store of record, which decides every claim. A layered store built from properties
   * ({@code idempotent.store=layered}) hands out its far store here, e.g. for the {@code Jdbi} of a table
   * store in joined mode, in whose transactions the protected methods run.
   */
  public IdempotencyStore far() {
    return far;
  }

  /** Closes the near and the far store (each closes only what it opened itself). */
  @Override
  public void close() {
    try {
      near.close();
    } finally {
      far.close();
    }
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    long now = time.nanoTime();
    ClaimResult here = answeredHere(key, now);
    if (here != null) {
      return here;
    }
    return tracked(key, fingerprint, owner, lease, now, far.claim(key, fingerprint, owner, lease));
  }

  /**
   * As {@link #claim}; the far store claims the call as the engine would ({@link CallClaims#claim}), and the
   * handle caches the outcome once the far store has committed it ({@link CallClaim#afterCommit}).
   */
  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    long now = time.nanoTime();
    ClaimResult here = answeredHere(key, now);
    if (here != null) {
      return CallClaims.of(this, key, owner, here);
    }
    CallClaim farClaim = CallClaims.claim(far, key, fingerprint, owner, lease, effects);
    tracked(key, fingerprint, owner, lease, now, farClaim.result());
    return farClaim.result().claimed() ? new LayeredClaim(farClaim, key, owner) : farClaim;
  }

  /** The answer to a claim of {@code key} known in this JVM: a committed outcome near, or a call running here. */
  private @Nullable ClaimResult answeredHere(String key, long now) {
    IdempotencyRecord cached = nearCompleted(key);
    if (cached != null) {
      return ClaimResult.existing(cached);
    }
    InFlight local = inFlight.get(key);
    if (local != null && local.liveAt(now)) {
      return ClaimResult.existing(IdempotencyRecord.inProgress(key, local.fingerprint, local.owner));
    }
    return null;
  }

  /** Notes a claim the far store granted as running here, and copies an outcome it answered with near. */
  private ClaimResult tracked(String key, String fingerprint, String owner, Duration lease, long now,
      ClaimResult result) {
    if (result.claimed()) {
      inFlight.put(key, new InFlight(owner, fingerprint, deadline(now, lease), new CompletableFuture<>()));
      sweepIfLarge(now);
    } else {
      IdempotencyRecord existing = result.existing();
      if (existing != null && existing.state() == RecordState.COMPLETED) {
        cacheNear(existing, now);
      }
    }
    return result;
  }

  /** A call's claim granted by the far store: its outcome is copied near once the far store commits it. */
  private final class LayeredClaim extends ForwardingCallClaim {
    private final String key;
    private final String owner;

    LayeredClaim(CallClaim far, String key, String owner) {
      super(far);
      this.key = key;
      this.owner = owner;
    }

    @Override
    public boolean complete(StoredOutcome outcome, Duration ttl) {
      return completed(key, owner, outcome, ttl, delegate(), false);
    }

    @Override
    public boolean completeDetached(StoredOutcome outcome, Duration ttl) {
      return completed(key, owner, outcome, ttl, delegate(), true);
    }

    @Override
    public boolean release() {
      try {
        return delegate().release();
      } finally {
        finish(key, owner);
      }
    }

    @Override
    public boolean renew(Duration lease) {
      long now = time.nanoTime();
      return renewed(key, owner, lease, now, delegate().renew(lease));
    }
  }

  /** Completes on the far store, which commits at once (one-time tokens), and copies the outcome near. */
  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return completed(key, owner, outcome, ttl, null, true);
  }

  /**
   * Completes through {@code farClaim} (a call's), or the far store's primitive when it is null. An outcome
   * that has committed when the far store returns ({@code committed}) is copied near at once; any other once
   * it commits.
   */
  private boolean completed(String key, String owner, StoredOutcome outcome, Duration ttl, @Nullable CallClaim farClaim,
      boolean committed) {
    long start = time.nanoTime();
    boolean completed;
    try {
      completed = farClaim == null ? far.complete(key, owner, outcome, ttl)
          : committed ? farClaim.completeDetached(outcome, ttl) : farClaim.complete(outcome, ttl);
    } catch (RuntimeException e) {
      finish(key, owner);
      throw e;
    }
    if (completed) {
      InFlight f = inFlight.get(key);
      String fingerprint = f != null && f.owner.equals(owner) ? f.fingerprint : null;
      if (fingerprint != null) {
        IdempotencyRecord record = IdempotencyRecord.completed(key, fingerprint, outcome).withExpiresIn(ttl);
        if (committed || farClaim == null) {
          cacheNear(record, start);
        } else {
          farClaim.afterCommit(() -> cacheNear(record, start));
        }
      }
    }
    finish(key, owner);
    return completed;
  }

  @Override
  public boolean release(String key, String owner) {
    try {
      return far.release(key, owner);
    } finally {
      finish(key, owner);
    }
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    long now = time.nanoTime();
    return renewed(key, owner, lease, now, far.renew(key, owner, lease));
  }

  /** Moves the local deadline of {@code owner}'s call after a renewal, or forgets the call when it failed. */
  private boolean renewed(String key, String owner, Duration lease, long now, boolean renewed) {
    inFlight.computeIfPresent(key, (k, f) -> !f.owner.equals(owner) ? f
        : renewed ? new InFlight(owner, f.fingerprint, deadline(now, lease), f.done) : null);
    return renewed;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    IdempotencyRecord cached = nearCompleted(key);
    if (cached != null) {
      return Optional.of(cached);
    }
    long now = time.nanoTime();
    InFlight local = inFlight.get(key);
    if (local != null && local.liveAt(now)) {
      return Optional.of(IdempotencyRecord.inProgress(key, local.fingerprint, local.owner));
    }
    Optional<IdempotencyRecord> found = far.find(key);
    found.filter(r -> r.state() == RecordState.COMPLETED).ifPresent(r -> cacheNear(r, now));
    return found;
  }

  @Override
  public int purgeExpired(int maxRecords) {
    long now = time.nanoTime();
    dropExpired(now); // claims whose owners never came back
    int purged = far.purgeExpired(maxRecords);
    try {
      near.purgeExpired(maxRecords);
    } catch (RuntimeException e) {
      LOG.log(Level.DEBUG, "near store purge failed", e);
    }
    return purged;
  }

  @Override
  public @Nullable CompletionStage<?> changeSignal(String key) {
    InFlight local = inFlight.get(key);
    return local != null ? local.done : null;
  }

  @Override
  public StoreKeyRules keyRules() {
    return KeyLimits.rulesOf(near).strictest(KeyLimits.rulesOf(far));
  }

  /**
   * Drops in-flight entries whose lease ran out (owners that never came back, one-time tokens never
   * consumed) once the map has doubled since the last sweep: an entry ends with its claim, and the
   * sweeps cost amortised constant time per claim.
   */
  private void sweepIfLarge(long now) {
    int threshold = sweepAt.get();
    if (inFlight.size() < threshold || !sweepAt.compareAndSet(threshold, Integer.MAX_VALUE)) {
      return; // small enough, or another thread is sweeping
    }
    try {
      dropExpired(now);
    } finally {
      sweepAt.set(Math.max(MIN_SWEEP_SIZE, 2 * inFlight.size()));
    }
  }

  /** Entries in the in-flight map, live or not yet swept; for tests. */
  int inFlightSize() {
    return inFlight.size();
  }

  /** {@code now + d} in nanoseconds, saturating instead of overflowing for very long durations. */
  private static long deadline(long now, Duration d) {
    long nanos = d.compareTo(MAX_NANOS) >= 0 ? MAX_NANOS.toNanos() : d.toNanos();
    return now > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : now + nanos;
  }

  /** Drops the in-flight entries whose lease ran out and wakes whoever waits on them. */
  private void dropExpired(long now) {
    for (Map.Entry<String, InFlight> e : inFlight.entrySet()) {
      InFlight f = e.getValue();
      if (!f.liveAt(now) && inFlight.remove(e.getKey(), f)) {
        f.done.complete(null);
      }
    }
  }

  private void finish(String key, String owner) {
    InFlight[] removed = new InFlight[1];
    inFlight.computeIfPresent(key, (k, f) -> {
      if (f.owner.equals(owner)) {
        removed[0] = f;
        return null;
      }
      return f;
    });
    if (removed[0] != null) {
      removed[0].done.complete(null);
    }
  }

  private @Nullable IdempotencyRecord nearCompleted(String key) {
    try {
      return near.find(key).filter(r -> r.state() == RecordState.COMPLETED).orElse(null);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "near store failed; asking the far store", e);
      return null;
    }
  }

  /** Copies a committed outcome near, for no longer than the far record has left since {@code since}. */
  private void cacheNear(IdempotencyRecord record, long since) {
    Duration expiresIn = record.expiresIn();
    StoredOutcome outcome = record.outcome();
    if (expiresIn == null || outcome == null) {
      return; // the far store did not say how long the record lives: a copy could outlive it
    }
    Duration remaining = expiresIn.minusNanos(time.nanoTime() - since);
    if (remaining.isNegative() || remaining.isZero()) {
      return;
    }
    String owner = "near";
    try {
      if (near.claim(record.key(), record.fingerprint(), owner, remaining).claimed()) {
        near.complete(record.key(), owner, outcome, remaining);
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "near store failed to cache an outcome; replays will ask the far store", e);
    }
  }
}
