package io.idempotent.spi;

import io.idempotent.Effects;
import java.time.Duration;

/**
 * An optional capability of an {@link IdempotencyStore}: it binds a method call's claim to a transaction.
 * A store may keep such a claim uncommitted in a transaction that the call's outcome then commits (the table
 * store's transaction-scoped modes), and a store that can write in the caller's own transaction decides from
 * the call's declared {@link Effects} whether its claim and outcome go into it, or refuses the call before
 * anything is written. The returned handle carries that binding. Stores without it are claimed with
 * {@link IdempotencyStore#claim} ({@link CallClaims#claim}).
 */
public interface CallScopedClaims {

  /**
   * Claims {@code key} as {@link IdempotencyStore#claim} does, for a method call that the calling thread
   * runs next and ends through the returned handle. One-time tokens, whose claims must be visible at once,
   * use {@link IdempotencyStore#claim}.
   *
   * @param effects where the method's effects live, as the call declares it
   * @throws io.idempotent.IdempotencyConfigurationException when the call cannot be recorded the way it
   *     is declared, or must declare how (a transaction it could either join or not); the engine passes it
   *     on and the method does not run
   */
  CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects);
}
