package io.idempotent.redis;

import static io.idempotent.redis.ScriptArguments.addLease;
import static io.idempotent.redis.ScriptArguments.completionArgs;
import static io.idempotent.redis.ScriptArguments.millis;
import static io.idempotent.redis.ScriptArguments.sendId;
import static io.idempotent.redis.ScriptReplies.claimResult;
import static io.idempotent.redis.ScriptReplies.done;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.TimeSource;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Redis store's batch claims ({@link BatchClaims}): the same scripts as one key's claim and completion,
 * one per key, pipelined. Thread-safe.
 */
final class RedisBatches {

  /** The store itself, for claims and completions key by key. */
  private final IdempotencyStore store;
  private final RedisKeys keys;
  private final StoreKeyRules keyRules;
  private final ScriptCalls calls;
  private final SharedSettings settings;
  private final int waitReplicas;
  private final TimeSource time;

  RedisBatches(IdempotencyStore store, RedisKeys keys, StoreKeyRules keyRules, ScriptCalls calls,
      SharedSettings settings, int waitReplicas, TimeSource time) {
    this.store = store;
    this.keys = keys;
    this.keyRules = keyRules;
    this.calls = calls;
    this.settings = settings;
    this.waitReplicas = waitReplicas;
    this.time = time;
  }

  /**
   * Claims a batch's keys with one claim script per key, pipelined: one round trip (one per server on a
   * cluster). Each claim is atomic on its key as {@link RedisIdempotencyStore#claim} is; when the answers come later than the lease,
   * every key the batch claimed is given back and it fails closed. A store that waits for replicas claims key
   * by key, each claim waiting for its own.
   */
  public List<ClaimResult> claimAll(List<BatchClaims.Claim> claims, String owner, Duration lease) {
    Objects.requireNonNull(owner, "owner");
    if (waitReplicas > 0) {
      List<ClaimResult> results = new ArrayList<>(claims.size());
      for (BatchClaims.Claim c : claims) {
        results.add(store.claim(c.key(), c.fingerprint(), owner, lease));
      }
      return results;
    }
    long leaseMillis = millis(lease, "lease");
    settings.requireAgreeing();
    List<byte[]> redisKeys = new ArrayList<>(claims.size());
    List<List<byte[]>> args = new ArrayList<>(claims.size());
    for (BatchClaims.Claim c : claims) {
      redisKeys.add(keys.of(keyRules.requireAccepted(c.key())));
      List<byte[]> a = new ArrayList<>(6);
      a.add(Hashing.exactUtf8(Objects.requireNonNull(c.fingerprint(), "fingerprint")));
      a.add(Hashing.exactUtf8(owner));
      addLease(a, leaseMillis);
      a.add(sendId());
      args.add(a);
    }
    if (claims.isEmpty()) {
      return List.of();
    }
    long sent = time.nanoTime();
    List<Object> replies = calls.runAll(LuaScript.CLAIM, redisKeys, args);
    List<ClaimResult> results = new ArrayList<>(claims.size());
    for (int i = 0; i < claims.size(); i++) {
      results.add(claimResult(claims.get(i).key(), (List<?>) replies.get(i)));
    }
    long tookNanos = time.nanoTime() - sent;
    if (tookNanos >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(leaseMillis)) {
      IdempotencyStoreException late = new IdempotencyStoreException("Redis answered the claims of a batch after "
          + Duration.ofNanos(tookNanos).toMillis() + " ms, not within their lease of " + leaseMillis
          + " ms; the claims were given back and no item runs (make the store's timeout shorter than the lease)");
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i).claimed()) {
          calls.giveBack(redisKeys.get(i), owner, late);
        }
      }
      throw late;
    }
    return results;
  }

  /**
   * Records a batch's outcomes with one completion script per key, pipelined: one round trip (one per server
   * on a cluster). A store that waits for replicas completes key by key.
   */
  public boolean[] completeAll(List<BatchClaims.Completion> completions, String owner, Duration ttl) {
    Objects.requireNonNull(owner, "owner");
    boolean[] done = new boolean[completions.size()];
    if (waitReplicas > 0) {
      for (int i = 0; i < done.length; i++) {
        done[i] = store.complete(completions.get(i).key(), owner, completions.get(i).outcome(), ttl);
      }
      return done;
    }
    long ttlMillis = millis(ttl, "ttl");
    List<byte[]> redisKeys = new ArrayList<>(completions.size());
    List<List<byte[]>> args = new ArrayList<>(completions.size());
    for (BatchClaims.Completion c : completions) {
      redisKeys.add(keys.of(keyRules.requireAccepted(c.key())));
      args.add(completionArgs(owner, ttlMillis, OutcomeFields.of(c.outcome()))); // encodes all before writing
    }
    if (completions.isEmpty()) {
      return done;
    }
    List<Object> replies = calls.runAll(LuaScript.COMPLETE, redisKeys, args);
    for (int i = 0; i < done.length; i++) {
      done[i] = done(replies.get(i));
    }
    return done;
  }
}
