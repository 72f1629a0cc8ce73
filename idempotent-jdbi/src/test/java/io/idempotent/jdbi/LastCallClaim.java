package io.idempotent.jdbi;

import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;

/** A decorator that keeps the handle of the last call claimed through it, as a cache in front of a store uses it. */
final class LastCallClaim extends ForwardingIdempotencyStore {

  private volatile CallClaim last;

  LastCallClaim(IdempotencyStore store) {
    super(store);
  }

  @Override
  protected CallClaim forward(CallClaim claim) {
    last = claim;
    return claim;
  }

  /** Runs {@code action} once the last call's outcome is committed ({@link CallClaim#afterCommit}). */
  void afterCommit(Runnable action) {
    last.afterCommit(action);
  }
}
