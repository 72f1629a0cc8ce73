package io.idempotent.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * A call's claim that passes every method on to another, so that a decorator overrides only what it watches
 * or changes: count renewals, time completions, fail on demand. A {@link ForwardingIdempotencyStore} wraps the
 * handles of its calls in one ({@link ForwardingIdempotencyStore#forward}).
 */
public abstract class ForwardingCallClaim implements CallClaim {

  private final CallClaim delegate;

  protected ForwardingCallClaim(CallClaim delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The handle every method goes to. */
  protected final CallClaim delegate() {
    return delegate;
  }

  @Override
  public ClaimResult result() {
    return delegate.result();
  }

  @Override
  public boolean complete(StoredOutcome outcome, Duration ttl) {
    return delegate.complete(outcome, ttl);
  }

  @Override
  public boolean completeDetached(StoredOutcome outcome, Duration ttl) {
    return delegate.completeDetached(outcome, ttl);
  }

  @Override
  public boolean release() {
    return delegate.release();
  }

  @Override
  public boolean renew(Duration lease) {
    return delegate.renew(lease);
  }

  @Override
  public void afterCommit(Runnable action) {
    delegate.afterCommit(action);
  }
}
