package io.idempotent.layered;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A far store that counts its round trips, says how long records live, and can hold back its
 * after-commit actions like a store joined to a caller's transaction.
 */
class CountingStore extends ForwardingIdempotencyStore {

  final AtomicInteger roundTrips = new AtomicInteger();
  private final LongSupplier time;
  private final java.util.Map<String, Long> deadlines = new java.util.concurrent.ConcurrentHashMap<>();
  volatile boolean deferCommits;
  final List<Runnable> pendingCommits = new ArrayList<>();

  /** The records, kept as JSON only like a persistent store; it can be told to fail. */
  final InMemoryTestStore records;

  CountingStore(LongSupplier time) {
    this(new InMemoryTestStore(time, true), time);
  }

  private CountingStore(InMemoryTestStore records, LongSupplier time) {
    super(records);
    this.records = records;
    this.time = time;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    roundTrips.incrementAndGet();
    return withExpiry(key, super.claim(key, fingerprint, owner, lease));
  }

  /** A call's claim, ended through this store's own primitives; its after-commit actions may be held back. */
  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease,
      io.idempotent.Effects effects) {
    return new ForwardingCallClaim(CallClaims.of(this, key, owner, claim(key, fingerprint, owner, lease))) {
      @Override
      public void afterCommit(Runnable action) {
        CountingStore.this.afterCommit(action);
      }
    };
  }

  private ClaimResult withExpiry(String key, ClaimResult r) {
    if (!r.claimed() && r.existing().outcome() != null) {
      return ClaimResult.existing(r.existing().withExpiresIn(remaining(key)));
    }
    return r;
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    roundTrips.incrementAndGet();
    boolean done = super.complete(key, owner, outcome, ttl);
    if (done) {
      deadlines.put(key, time.getAsLong() + ttl.toNanos());
    }
    return done;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    roundTrips.incrementAndGet();
    return super.find(key).map(r -> r.outcome() != null ? r.withExpiresIn(remaining(key)) : r);
  }

  private Duration remaining(String key) {
    Long d = deadlines.get(key);
    return d == null ? null : Duration.ofNanos(d - time.getAsLong());
  }

  synchronized void afterCommit(Runnable action) {
    if (deferCommits) {
      pendingCommits.add(action);
    } else {
      action.run();
    }
  }

  synchronized void commit() {
    pendingCommits.forEach(Runnable::run);
    pendingCommits.clear();
  }

  synchronized void rollback() {
    pendingCommits.clear();
  }
}
