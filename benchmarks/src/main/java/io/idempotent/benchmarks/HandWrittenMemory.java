package io.idempotent.benchmarks;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.idempotent.internal.Fingerprints;
import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.StoreKeyRules;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The in-memory floor: the least code that gives the guarantee of {@code @Idempotent} on the Caffeine
 * store, with no idempotency library. It builds the same key string, the same SHA-256 fingerprint over
 * the same canonical bytes, claims with one atomic map operation (after a read that answers replays),
 * runs the method, and records the result by reference with its TTL, fenced by an owner token. The map
 * is the same bounded Caffeine map with per-entry deadlines, bounded as the store it is compared with
 * (completed entries weigh 1, claims 0). Thread-safe.
 */
final class HandWrittenMemory {

  private static final long LEASE_NANOS = 30_000_000_000L;
  private static final long TTL_NANOS = 86_400_000_000_000L;

  /** A claim (result null, owner set) or a completed call (owner null). */
  private record Entry(boolean completed, String fingerprint, String owner, Object result, long deadline) {}

  private final ConcurrentMap<String, Entry> map;
  private final AtomicLong owners = new AtomicLong();
  private final boolean checkFingerprint;

  /**
   * @param maximumCompleted the bound on completed entries, as {@code
   *     CaffeineIdempotencyStore.Builder.maximumCompleted} of the store compared
   */
  HandWrittenMemory(boolean checkFingerprint, long maximumCompleted) {
    this.checkFingerprint = checkFingerprint;
    this.map = Caffeine.newBuilder()
          .maximumWeight(maximumCompleted)
          .weigher((String k, Entry e) -> e.completed ? 1 : 0)
          .expireAfter(new Expiry<String, Entry>() {
            @Override
            public long expireAfterCreate(String k, Entry e, long now) {
              return Math.max(0, e.deadline - now);
            }

            @Override
            public long expireAfterUpdate(String k, Entry e, long now, long current) {
              return Math.max(0, e.deadline - now);
            }

            @Override
            public long expireAfterRead(String k, Entry e, long now, long current) {
              return current;
            }
          })
          .<String, Entry>build()
          .asMap();
  }

  @SuppressWarnings("unchecked")
  <T> T call(String name, String key, Object[] args, Supplier<T> body) {
    String stored = StoredKeys.compose(name, null, key, StoreKeyRules.any());
    String fingerprint = checkFingerprint ? Fingerprints.of(args) : "";
    long now = System.nanoTime();
    Entry live = map.get(stored);
    if (live != null && live.deadline - now > 0) {
      return (T) answer(live, fingerprint);
    }
    String owner = "hw." + Long.toString(owners.incrementAndGet(), 36);
    Entry claim = new Entry(false, fingerprint, owner, null, now + LEASE_NANOS);
    Entry[] existing = new Entry[1];
    map.compute(stored, (k, e) -> {
      if (e != null && e.deadline - now > 0) {
        existing[0] = e;
        return e;
      }
      return claim;
    });
    if (existing[0] != null) {
      return (T) answer(existing[0], fingerprint);
    }
    T result;
    try {
      result = body.get();
    } catch (RuntimeException e) {
      map.remove(stored, claim);
      throw e;
    }
    long done = System.nanoTime();
    map.computeIfPresent(stored, (k, e) -> e == claim ? new Entry(true, fingerprint, null, result, done + TTL_NANOS) : e);
    return result;
  }

  private static Object answer(Entry e, String fingerprint) {
    if (!e.fingerprint.isEmpty() && !e.fingerprint.equals(fingerprint)) {
      throw new IllegalStateException("key reused with other arguments");
    }
    if (!e.completed) {
      throw new IllegalStateException("in progress");
    }
    return e.result;
  }
}
