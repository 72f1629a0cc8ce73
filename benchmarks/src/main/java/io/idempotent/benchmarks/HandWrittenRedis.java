package io.idempotent.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.idempotent.internal.Fingerprints;
import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.StoreKeyRules;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * The Redis floor: what a team writes by hand for the same guarantee. The same key string and SHA-256
 * fingerprint, {@code SET NX PX} for the claim (the value holds owner and fingerprint), the method,
 * then a small fenced compare-and-set script that replaces the claim with the JSON result and its TTL.
 * A replay is the refused {@code SET NX} and a {@code GET}: two round trips, where the store's claim
 * script answers in one. Thread-safe.
 */
final class HandWrittenRedis {

  private static final long LEASE_MS = 30_000;
  private static final long TTL_MS = 86_400_000;
  private static final String COMPLETE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])"
          + " return 1 end return 0";

  private final UnifiedJedis redis;
  private final String prefix;
  private final ObjectMapper json = new ObjectMapper();
  private final AtomicLong owners = new AtomicLong();

  HandWrittenRedis(UnifiedJedis redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  Receipt call(String name, String key, Object[] args, Supplier<Receipt> body) throws Exception {
    String stored = prefix + StoredKeys.compose(name, null, key, StoreKeyRules.any().maxChars(1024));
    String fingerprint = Fingerprints.of(args);
    String owner = "hw." + Long.toString(owners.incrementAndGet(), 36);
    String claim = "P|" + owner + "|" + fingerprint;
    String ok = redis.set(stored, claim, SetParams.setParams().nx().px(LEASE_MS));
    if (ok == null) {
      String existing = redis.get(stored);
      if (existing == null || !existing.startsWith("D|")) {
        throw new IllegalStateException("in progress");
      }
      int bar = existing.indexOf('|', 2);
      if (!existing.substring(2, bar).equals(fingerprint)) {
        throw new IllegalStateException("key reused");
      }
      return json.readValue(existing.substring(bar + 1), Receipt.class);
    }
    Receipt result = body.get();
    String done = "D|" + fingerprint + "|" + json.writeValueAsString(result);
    Object fenced = redis.eval(COMPLETE, List.of(stored), List.of(claim, done, Long.toString(TTL_MS)));
    if (!Long.valueOf(1).equals(fenced)) {
      throw new IllegalStateException("lease lost");
    }
    return result;
  }
}
