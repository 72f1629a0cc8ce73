package io.idempotent.layered;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A cache in front of a store of record: the <em>near</em> store (in memory) holds copies of committed
 * COMPLETED outcomes, the <em>far</em> store (a SQL table) decides every claim. A replay found near
 * costs no round trip to the far store; a near miss is never final, it asks the far store. Calls in
 * progress in this JVM are tracked locally, so a duplicate of a call running here is answered without
 * a round trip and can wait for it without polling.
 *
 * <p>Only outcomes the far store has committed are copied near ({@link IdempotencyStore#afterCommit}),
 * and a copy never outlives its far record: it is kept for the far record's remaining lifetime, less
 * the time the far call took.
 *
 * <p><b>When the far store is down</b>, claims fail ({@code IdempotencyStoreException}, nothing runs)
 * except for keys whose completed outcome is already near: those are still replayed, since replaying a
 * committed outcome needs no decision. Failures of the near store are logged and ignored.
 *
 * <p>Thread-safe. {@link #close()} closes both stores.
 */
public final class LayeredIdempotencyStore implements IdempotencyStore {

  private static final System.Logger LOG = System.getLogger("io.idempotent.layered");

  private final IdempotencyStore near;
  private final IdempotencyStore far;
  private final ConcurrentHashMap<String, InFlight> inFlight = new ConcurrentHashMap<>();

  /** A claim held by a call running in this JVM. */
  private record InFlight(String owner, String fingerprint, long deadline, CompletableFuture<Void> done) {
    boolean liveAt(long now) {
      return deadline - now > 0;
    }
  }

  private final LongSupplier nanoTime;

  public LayeredIdempotencyStore(IdempotencyStore near, IdempotencyStore far) {
    this(near, far, System::nanoTime);
  }

  /**
   * @param nanoTime the clock for local bookkeeping (in-flight leases, the age of near copies); tests
   *     pass the same fake ticker as their stores
   */
  public LayeredIdempotencyStore(IdempotencyStore near, IdempotencyStore far, LongSupplier nanoTime) {
    this.near = Objects.requireNonNull(near, "near");
    this.far = Objects.requireNonNull(far, "far");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** The store in front (a cache of committed outcomes). */
  public IdempotencyStore near() {
    return near;
  }

  /** The store of record, which decides every claim. */
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
    IdempotencyRecord cached = nearCompleted(key);
    if (cached != null) {
      return ClaimResult.existing(cached);
    }
    long now = nanoTime.getAsLong();
    InFlight local = inFlight.get(key);
    if (local != null && local.liveAt(now)) {
      return ClaimResult.existing(IdempotencyRecord.inProgress(key, local.fingerprint, local.owner));
    }
    ClaimResult result = far.claim(key, fingerprint, owner, lease);
    if (result.claimed()) {
      inFlight.put(key, new InFlight(owner, fingerprint, now + lease.toNanos(), new CompletableFuture<>()));
    } else if (result.existing().state() == RecordState.COMPLETED) {
      cacheNear(result.existing(), now);
    }
    return result;
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    long start = nanoTime.getAsLong();
    boolean completed;
    try {
      completed = far.complete(key, owner, outcome, ttl);
    } catch (RuntimeException e) {
      finish(key, owner);
      throw e;
    }
    if (completed) {
      InFlight f = inFlight.get(key);
      String fingerprint = f != null && f.owner.equals(owner) ? f.fingerprint : null;
      if (fingerprint != null) {
        IdempotencyRecord record = IdempotencyRecord.completed(key, fingerprint, outcome).withExpiresIn(ttl);
        far.afterCommit(() -> cacheNear(record, start));
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
    long now = nanoTime.getAsLong();
    boolean renewed = far.renew(key, owner, lease);
    inFlight.computeIfPresent(key, (k, f) -> !f.owner.equals(owner) ? f
        : renewed ? new InFlight(owner, f.fingerprint, now + lease.toNanos(), f.done) : null);
    return renewed;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    IdempotencyRecord cached = nearCompleted(key);
    if (cached != null) {
      return Optional.of(cached);
    }
    long now = nanoTime.getAsLong();
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
    long now = nanoTime.getAsLong();
    inFlight.values().removeIf(f -> !f.liveAt(now)); // claims whose owners never came back
    int purged = far.purgeExpired(maxRecords);
    try {
      near.purgeExpired(maxRecords);
    } catch (RuntimeException e) {
      LOG.log(Level.DEBUG, "near store purge failed", e);
    }
    return purged;
  }

  @Override
  public void afterCommit(Runnable action) {
    far.afterCommit(action);
  }

  @Override
  public CompletionStage<?> changeSignal(String key) {
    InFlight local = inFlight.get(key);
    return local != null ? local.done : null;
  }

  @Override
  public int maxKeyLength() {
    return Math.min(near.maxKeyLength(), far.maxKeyLength());
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

  private IdempotencyRecord nearCompleted(String key) {
    try {
      return near.find(key).filter(r -> r.state() == RecordState.COMPLETED).orElse(null);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "near store failed; asking the far store", e);
      return null;
    }
  }

  /** Copies a committed outcome near, for no longer than the far record has left since {@code since}. */
  private void cacheNear(IdempotencyRecord record, long since) {
    if (record.expiresIn() == null) {
      return; // the far store did not say how long the record lives: a copy could outlive it
    }
    Duration remaining = record.expiresIn().minusNanos(nanoTime.getAsLong() - since);
    if (remaining.isNegative() || remaining.isZero()) {
      return;
    }
    String owner = "near";
    try {
      if (near.claim(record.key(), record.fingerprint(), owner, remaining).claimed()) {
        near.complete(record.key(), owner, record.outcome(), remaining);
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "near store failed to cache an outcome; replays will ask the far store", e);
    }
  }
}
