package io.idempotent.caffeine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.InMemoryStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory store on Caffeine, for a single JVM. Every primitive is one atomic operation on the
 * cache's map ({@code compute}, {@code computeIfPresent}); each record expires at its own deadline
 * (the lease of an in-progress claim, the TTL of a completed outcome), measured by the injected
 * {@link Ticker}. Outcomes are kept as the engine gives them: a result of a type that cannot change
 * (a string, a number, a record of such) by reference, any other as its JSON, decoded afresh for each
 * replay, so that a caller who changes a returned object never changes what later replays see.
 *
 * <p><b>Bounded size.</b> {@link Builder#maximumCompleted(long)} bounds the number of COMPLETED
 * records. In-progress claims weigh nothing and are never evicted by size, so eviction can never let a
 * duplicate run while the first call is still running; they are bounded by the number of calls
 * running at once. When the bound is reached, the least valuable completed records are evicted
 * before their TTL, and a retry of an evicted key runs again: size the bound for (calls per second ×
 * TTL), or use a durable store.
 *
 * <p>Thread-safe.
 */
public final class CaffeineIdempotencyStore implements IdempotencyStore, InMemoryStore, BatchClaims {

  /** Default bound on completed records. */
  public static final long DEFAULT_MAXIMUM_COMPLETED = 100_000;

  private final ConcurrentMap<String, Entry> map;
  private final Cache<String, Entry> cache;
  private final Ticker ticker;

  /** A store with the default bound and the system ticker. */
  public CaffeineIdempotencyStore() {
    this(builder());
  }

  private CaffeineIdempotencyStore(Builder b) {
    this.ticker = b.ticker;
    this.cache = Caffeine.newBuilder()
        .ticker(b.ticker)
        .maximumWeight(b.maximumCompleted)
        .weigher((String k, Entry e) -> e.state == RecordState.COMPLETED ? 1 : 0)
        .expireAfter(new EntryExpiry())
        .build();
    this.map = cache.asMap();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * One stored record. Immutable; every change replaces it atomically. A completed entry holds the
   * claim result that replays it, made once, so that a replay allocates nothing here.
   */
  private static final class Entry {
    final RecordState state;
    final String fingerprint;
    final @Nullable String owner;
    final long deadline;
    /** For a claim: how long it is kept after its deadline (see {@link #graceNanos}). */
    final long grace;
    private final @Nullable ClaimResult replay;

    private Entry(RecordState state, String fingerprint, @Nullable String owner, long deadline, long grace,
        @Nullable ClaimResult replay) {
      this.state = state;
      this.fingerprint = fingerprint;
      this.owner = owner;
      this.deadline = deadline;
      this.grace = grace;
      this.replay = replay;
    }

    static Entry inProgress(String fingerprint, String owner, long deadline, Duration lease) {
      return new Entry(RecordState.IN_PROGRESS, fingerprint, owner, deadline, graceNanos(lease), null);
    }

    static Entry completed(String key, String fingerprint, StoredOutcome outcome, long deadline) {
      ClaimResult replay = ClaimResult.existing(IdempotencyRecord.completed(key, fingerprint, outcome));
      return new Entry(RecordState.COMPLETED, fingerprint, null, deadline, 0, replay);
    }

    boolean liveAt(long now) {
      return deadline - now > 0;
    }

    boolean heldBy(String owner) {
      return state == RecordState.IN_PROGRESS && owner.equals(this.owner);
    }

    /** The claim result of a caller who finds this entry live. */
    ClaimResult asExisting(String key) {
      return replay != null ? replay : ClaimResult.existing(toRecord(key));
    }

    IdempotencyRecord toRecord(String key) {
      IdempotencyRecord completed = replay != null ? replay.existing() : null;
      return completed != null ? completed : IdempotencyRecord.inProgress(key, fingerprint, owner);
    }
  }

  private static final Duration MAX_GRACE = Duration.ofHours(1);
  private static final long MAX_GRACE_NANOS = MAX_GRACE.toNanos();

  /**
   * How long a claim whose lease ran out is kept (as absent to readers) after its lease: ten leases, at
   * most an hour. A late owner whom nobody replaced within it still completes, as the SPI promises, and
   * a takeover is told from a fresh claim. Claims weigh nothing, so the bound keeps what unfinished
   * claims and unused one-time tokens cost in memory in proportion to their own lifetimes.
   */
  static long graceNanos(Duration lease) {
    long nanos = lease.compareTo(MAX_GRACE) >= 0 ? MAX_GRACE_NANOS : lease.toNanos();
    return Math.max(nanos, Math.min(10 * nanos, MAX_GRACE_NANOS));
  }

  /** Expires completed records at their deadline, in-progress claims their {@link #graceNanos grace} after it. */
  private static final class EntryExpiry implements Expiry<String, Entry> {
    @Override
    public long expireAfterCreate(String key, Entry e, long now) {
      long remaining = e.deadline - now;
      if (e.state == RecordState.IN_PROGRESS) {
        remaining = remaining > Long.MAX_VALUE / 2 ? remaining : remaining + e.grace;
      }
      return Math.max(0, remaining);
    }

    @Override
    public long expireAfterUpdate(String key, Entry e, long now, long currentDuration) {
      return expireAfterCreate(key, e, now);
    }

    @Override
    public long expireAfterRead(String key, Entry e, long now, long currentDuration) {
      return currentDuration;
    }
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(owner, "owner");
    long now = ticker.read();
    Entry live = map.get(key);
    if (live != null && live.liveAt(now)) {
      return live.asExisting(key); // a replay or duplicate: a read, no write
    }
    long deadline = deadline(now, lease);
    ClaimResult[] result = new ClaimResult[1];
    map.compute(key, (k, e) -> {
      if (e != null && e.liveAt(now)) {
        result[0] = e.asExisting(k);
        return e;
      }
      result[0] = e != null && e.state == RecordState.IN_PROGRESS ? ClaimResult.takenOver() : ClaimResult.acquired();
      return Entry.inProgress(fingerprint, owner, deadline, lease);
    });
    return result[0];
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    Objects.requireNonNull(outcome, "outcome");
    long now = ticker.read();
    long deadline = deadline(now, ttl);
    boolean[] done = new boolean[1];
    map.computeIfPresent(key, (k, e) -> {
      if (!e.heldBy(owner)) {
        return e;
      }
      done[0] = true;
      return Entry.completed(k, e.fingerprint, outcome, deadline);
    });
    return done[0];
  }

  /** Each key as {@link #claim} claims it: in memory, a batch costs no round trip to save. */
  @Override
  public List<ClaimResult> claimAll(List<BatchClaims.Claim> claims, String owner, Duration lease) {
    List<ClaimResult> results = new ArrayList<>(claims.size());
    for (BatchClaims.Claim c : claims) {
      results.add(claim(c.key(), c.fingerprint(), owner, lease));
    }
    return results;
  }

  @Override
  public boolean[] completeAll(List<BatchClaims.Completion> completions, String owner, Duration ttl) {
    boolean[] recorded = new boolean[completions.size()];
    for (int i = 0; i < recorded.length; i++) {
      recorded[i] = complete(completions.get(i).key(), owner, completions.get(i).outcome(), ttl);
    }
    return recorded;
  }

  @Override
  public boolean release(String key, String owner) {
    boolean[] done = new boolean[1];
    map.computeIfPresent(key, (k, e) -> {
      if (!e.heldBy(owner)) {
        return e;
      }
      done[0] = true;
      return null;
    });
    return done[0];
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    long now = ticker.read();
    long deadline = deadline(now, lease);
    boolean[] done = new boolean[1];
    map.computeIfPresent(key, (k, e) -> {
      if (!e.heldBy(owner)) {
        return e;
      }
      done[0] = true;
      return Entry.inProgress(e.fingerprint, owner, deadline, lease);
    });
    return done[0];
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    Entry e = cache.getIfPresent(key);
    return e != null && e.liveAt(ticker.read()) ? Optional.of(e.toRecord(key)) : Optional.empty();
  }

  @Override
  public int purgeExpired(int maxRecords) {
    long now = ticker.read();
    int removed = 0;
    for (Map.Entry<String, Entry> me : map.entrySet()) {
      if (removed >= maxRecords) {
        break;
      }
      if (!me.getValue().liveAt(now) && map.remove(me.getKey(), me.getValue())) {
        removed++;
      }
    }
    cache.cleanUp();
    return removed;
  }

  /** Number of records held, live or awaiting eviction (this package's tests look at it). */
  long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  private static long deadline(long now, Duration d) {
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) {
      nanos = Long.MAX_VALUE / 4;
    }
    return now + Math.min(nanos, Long.MAX_VALUE / 4);
  }

  /** Builds a {@link CaffeineIdempotencyStore}. Not thread-safe. */
  public static final class Builder {
    private long maximumCompleted = DEFAULT_MAXIMUM_COMPLETED;
    private Ticker ticker = Ticker.systemTicker();

    private Builder() {}

    /** Bound on COMPLETED records (in-progress claims are never evicted by size). */
    public Builder maximumCompleted(long maximum) {
      if (maximum <= 0) {
        throw new IllegalArgumentException("maximumCompleted must be positive, was " + maximum);
      }
      this.maximumCompleted = maximum;
      return this;
    }

    /** The time source for leases and TTLs; tests pass a fake ticker to control time. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public CaffeineIdempotencyStore build() {
      return new CaffeineIdempotencyStore(this);
    }
  }
}
