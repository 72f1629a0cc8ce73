package io.idempotent.jdbi;

import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** A method call's claim: it knows the caller's transaction its outcome was written in, to run after-commit actions. */
final class TableClaim implements CallClaim {

  /** How the store records a call's outcome (JdbiIdempotencyStore's complete). */
  @FunctionalInterface
  interface Outcomes {
    /**
     * Records {@code outcome} for the claim of {@code storedKey} held by {@code owner}.
     *
     * @param detached the outcome arrived after the call returned
     * @param call the claim to tell the caller's transaction the outcome was written in; null for none
     */
    boolean complete(String storedKey, String owner, StoredOutcome outcome, Duration ttl, boolean detached,
        @Nullable TableClaim call);
  }

  private final IdempotencyStore store;
  private final Outcomes outcomes;
  private final TransactionScopedClaims scoped;
  private final String storedKey;
  private final String owner;
  private final ClaimResult result;
  /** The caller's transaction the outcome was written in, or null. Written and read by the call's thread. */
  CallerTransactions.@Nullable Transaction joined;

  TableClaim(IdempotencyStore store, Outcomes outcomes, TransactionScopedClaims scoped, String storedKey,
      String owner, ClaimResult result) {
    this.store = store;
    this.outcomes = outcomes;
    this.scoped = scoped;
    this.storedKey = storedKey;
    this.owner = owner;
    this.result = result;
  }

  @Override
  public ClaimResult result() {
    return result;
  }

  @Override
  public boolean complete(StoredOutcome outcome, Duration ttl) {
    return outcomes.complete(storedKey, owner, outcome, ttl, false, this);
  }

  @Override
  public boolean completeDetached(StoredOutcome outcome, Duration ttl) {
    return outcomes.complete(storedKey, owner, outcome, ttl, true, null);
  }

  @Override
  public boolean release() {
    return store.release(storedKey, owner);
  }

  @Override
  public boolean renew(Duration lease) {
    return store.renew(storedKey, owner, lease);
  }

  /**
   * When the outcome was written in the caller's transaction (a transactional call), runs {@code action}
   * after that transaction commits and never if it rolls back; otherwise, where the outcome has committed by
   * the time {@link #complete} returned, runs it now.
   */
  @Override
  public void afterCommit(Runnable action) {
    if (joined != null && joined == scoped.currentOrNone()) {
      joined.afterCommit(action);
    } else {
      action.run(); // committed already: on its own, or with a transaction that has ended since
    }
  }
}
