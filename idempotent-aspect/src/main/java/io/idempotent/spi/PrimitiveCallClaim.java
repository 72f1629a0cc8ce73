package io.idempotent.spi;

import java.time.Duration;

/** A call's claim on a store that commits each write at once: the store's primitives under its key and owner. */
record PrimitiveCallClaim(IdempotencyStore store, String key, String owner, ClaimResult result)
    implements CallClaim {

  @Override
  public boolean complete(StoredOutcome outcome, Duration ttl) {
    return store.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release() {
    return store.release(key, owner);
  }

  @Override
  public boolean renew(Duration lease) {
    return store.renew(key, owner, lease);
  }
}
