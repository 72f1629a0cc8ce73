package io.idempotent.spi;

import java.time.Duration;

/**
 * One method call's claim of a key: what the claim found ({@link #result()}) and, while the call holds the
 * key, the way its outcome is recorded or its claim given back. The engine claims every call through
 * {@link CallClaims#claim}, and ends a held claim with exactly one of {@link #complete}, {@link #completeDetached} or
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
}
