package io.idempotent.spi;

import io.idempotent.Effects;
import java.time.Duration;
import java.util.Objects;

/** Where a method call's {@link CallClaim} comes from: the store's own, or one over its primitives. */
public final class CallClaims {

  private CallClaims() {}

  /**
   * Claims {@code key} for a method call declared with {@code effects}: through
   * {@link CallScopedClaims#claimForCall} where the store offers it, otherwise with
   * {@link IdempotencyStore#claim}, the handle then running the store's primitives.
   */
  public static CallClaim claim(IdempotencyStore store, String key, String fingerprint, String owner, Duration lease,
      Effects effects) {
    if (store instanceof CallScopedClaims scoped) {
      return scoped.claimForCall(key, fingerprint, owner, lease, effects);
    }
    return of(store, key, owner, store.claim(key, fingerprint, owner, lease));
  }

  /** The handle of a claim {@code store} committed at once: each method runs the store's primitive. */
  public static CallClaim of(IdempotencyStore store, String key, String owner, ClaimResult result) {
    return new PrimitiveCallClaim(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"),
        Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(result, "result"));
  }
}
