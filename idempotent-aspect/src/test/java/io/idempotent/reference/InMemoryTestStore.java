package io.idempotent.reference;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The simplest correct store: one lock over a hash map, time from a supplier. A reference for the
 * contract, and the store of the core module's own tests. It can be told to fail, to test fail-closed
 * behaviour, and to encode outcomes like a persistent store would. Thread-safe.
 */
public class InMemoryTestStore implements IdempotencyStore, KeyLimits {

  private record Entry(RecordState state, String fingerprint, String owner, StoredOutcome outcome, long deadline) {}

  private final Map<String, Entry> entries = new HashMap<>();
  private final LongSupplier nanoTime;
  private final boolean encode;
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicLong claims = new AtomicLong();
  /** Renewals that kept a claim. Guarded by this. */
  private long renewals;

  /**
   * @param nanoTime the store's clock
   * @param encode whether outcomes are kept as JSON only (like a SQL store) rather than by reference
   */
  public InMemoryTestStore(LongSupplier nanoTime, boolean encode) {
    this.nanoTime = nanoTime;
    this.encode = encode;
  }

  public InMemoryTestStore() {
    this(System::nanoTime, false);
  }

  /** While true, every primitive throws as if the store were unreachable. */
  public void failing(boolean fail) {
    failing.set(fail);
  }

  /** How many times {@link #claim} was called. */
  public long claims() {
    return claims.get();
  }

  /** How many renewals kept a claim. */
  public synchronized long renewals() {
    return renewals;
  }

  /**
   * Waits until at least {@code count} renewals have kept a claim (renewals run on the lease renewer's
   * threads). Throws {@link AssertionError} after 10 seconds, so that a test fails instead of hanging.
   */
  public synchronized void awaitRenewals(long count) throws InterruptedException {
    long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (renewals < count) {
      long left = giveUpAt - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("expected " + count + " renewals within 10 s, saw " + renewals);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  private void check() {
    if (failing.get()) {
      throw new IllegalStateException("store unreachable (simulated)");
    }
  }

  /** Loses every record, as a store restarted without persistence (or one that evicted them) does. */
  public synchronized void forgetAll() {
    entries.clear();
  }

  @Override
  public synchronized ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    check();
    claims.incrementAndGet();
    long now = nanoTime.getAsLong();
    Entry e = entries.get(key);
    if (e != null && e.deadline - now > 0) {
      return ClaimResult.existing(new IdempotencyRecord(key, e.state, e.fingerprint, e.owner, e.outcome));
    }
    entries.put(key, new Entry(RecordState.IN_PROGRESS, fingerprint, owner, null, deadline(now, lease)));
    return e != null && e.state == RecordState.IN_PROGRESS ? ClaimResult.takenOver() : ClaimResult.acquired();
  }

  @Override
  public synchronized boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    check();
    Entry e = entries.get(key);
    if (e == null || e.state != RecordState.IN_PROGRESS || !e.owner.equals(owner)) {
      return false;
    }
    StoredOutcome kept = outcome;
    if (encode && outcome.kind() == StoredOutcome.Kind.VALUE) {
      kept = StoredOutcome.valueJson(outcome.json());
    }
    entries.put(key, new Entry(RecordState.COMPLETED, e.fingerprint, null, kept, deadline(nanoTime.getAsLong(), ttl)));
    return true;
  }

  @Override
  public synchronized boolean release(String key, String owner) {
    check();
    Entry e = entries.get(key);
    if (e == null || e.state != RecordState.IN_PROGRESS || !e.owner.equals(owner)) {
      return false;
    }
    entries.remove(key);
    return true;
  }

  @Override
  public synchronized boolean renew(String key, String owner, Duration lease) {
    check();
    Entry e = entries.get(key);
    if (e == null || e.state != RecordState.IN_PROGRESS || !e.owner.equals(owner)) {
      return false;
    }
    entries.put(key, new Entry(e.state, e.fingerprint, owner, null, deadline(nanoTime.getAsLong(), lease)));
    renewals++;
    notifyAll();
    return true;
  }

  @Override
  public synchronized Optional<IdempotencyRecord> find(String key) {
    check();
    Entry e = entries.get(key);
    if (e == null || e.deadline - nanoTime.getAsLong() <= 0) {
      return Optional.empty();
    }
    return Optional.of(new IdempotencyRecord(key, e.state, e.fingerprint, e.owner, e.outcome));
  }

  @Override
  public synchronized int purgeExpired(int maxRecords) {
    check();
    long now = nanoTime.getAsLong();
    int removed = 0;
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext() && removed < maxRecords; ) {
      if (it.next().deadline - now <= 0) {
        it.remove();
        removed++;
      }
    }
    return removed;
  }

  /** {@code now + d}, saturating: a lease or TTL of centuries must not overflow. */
  private static long deadline(long now, Duration d) {
    long nanos = d.compareTo(Duration.ofNanos(Long.MAX_VALUE / 2)) >= 0 ? Long.MAX_VALUE / 2 : d.toNanos();
    return now > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : now + nanos;
  }

  /** Every key; a test that needs a store with limits overrides it. */
  @Override
  public StoreKeyRules keyRules() {
    return StoreKeyRules.any();
  }
}
