package io.idempotent.spi;

import io.idempotent.Effects;
import java.time.Duration;
import java.util.Objects;

/**
 * One method call's claim of a key: what the claim found ({@link #result()}) and, while the call holds the
 * key, the way its outcome is recorded or its claim given back. The engine claims every call through
 * {@link #claim}, and ends a held claim with exactly one of {@link #complete}, {@link #completeDetached} or
 * {@link #release}; it may {@link #renew} it before. A store that binds a call's claim to a transaction
 * ({@link CallScopedClaims}) keeps that binding in its handle; for any other store the handle is the
 * store's own primitives under the call's key and owner token.
 *
 * <p>Used by one call at a time (the calling thread, then the lease renewer or the thread that completes a
 * {@code CompletionStage}); the primitives it runs are thread-safe.
 */
public interface CallClaim {

  /** What the claim found: this call now holds the key, or the live record that someone else holds. */
  ClaimResult result();

  /**
   * Records the outcome and ends the claim, as {@link IdempotencyStore#complete} does.
   *
   * @return false if this call no longer holds the claim; nothing was changed then
   */
  boolean complete(StoredOutcome outcome, Duration ttl);

  /**
   * Records an outcome that arrived after the call returned, on whatever thread completed the call's
   * {@code CompletionStage}: like {@link #complete}, but never inside a transaction that thread happens to
   * have open, which is not the call's. The default is {@link #complete}, right for every store that
   * commits each write at once.
   */
  default boolean completeDetached(StoredOutcome outcome, Duration ttl) {
    return complete(outcome, ttl);
  }

  /**
   * Gives the key back so that it may be claimed again, as {@link IdempotencyStore#release} does.
   *
   * @return false if this call no longer holds the claim; nothing was changed then
   */
  boolean release();

  /**
   * Extends the lease to {@code lease} from now, as {@link IdempotencyStore#renew} does.
   *
   * @return false if this call no longer holds the claim; nothing was changed then
   */
  boolean renew(Duration lease);

  /**
   * Runs {@code action} once the outcome {@link #complete} wrote is committed: at once where it committed
   * when {@code complete} returned (the default), after the caller's transaction commits where the outcome
   * was written in it, and never if that transaction rolls back. Caches in front of a store use it so that
   * only committed outcomes are cached.
   */
  default void afterCommit(Runnable action) {
    action.run();
  }

  /**
   * Claims {@code key} for a method call declared with {@code effects}: through
   * {@link CallScopedClaims#claimForCall} where the store offers it, otherwise with
   * {@link IdempotencyStore#claim}, the handle then running the store's primitives.
   */
  static CallClaim claim(IdempotencyStore store, String key, String fingerprint, String owner, Duration lease,
      Effects effects) {
    if (store instanceof CallScopedClaims scoped) {
      return scoped.claimForCall(key, fingerprint, owner, lease, effects);
    }
    return of(store, key, owner, store.claim(key, fingerprint, owner, lease));
  }

  /** The handle of a claim {@code store} committed at once: each method runs the store's primitive. */
  static CallClaim of(IdempotencyStore store, String key, String owner, ClaimResult result) {
    return new PrimitiveCallClaim(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"),
        Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(result, "result"));
  }
}
