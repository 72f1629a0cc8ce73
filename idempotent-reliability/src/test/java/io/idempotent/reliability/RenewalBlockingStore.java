package io.idempotent.reliability;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose lease renewals can be blocked (they then fail, as when the renewing connection is
 * cut), and which counts renewals. Everything else goes to the real store. Thread-safe.
 */
final class RenewalBlockingStore implements IdempotencyStore {

  final AtomicBoolean blocked = new AtomicBoolean();
  final AtomicInteger renewals = new AtomicInteger();
  final AtomicInteger blockedRenewals = new AtomicInteger();
  private final IdempotencyStore delegate;

  RenewalBlockingStore(IdempotencyStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    if (blocked.get()) {
      blockedRenewals.incrementAndGet();
      throw new IllegalStateException("renewal blocked by the test");
    }
    renewals.incrementAndGet();
    return delegate.renew(key, owner, lease);
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return delegate.claim(key, fingerprint, owner, lease);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return delegate.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    return delegate.release(key, owner);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return delegate.find(key);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return delegate.purgeExpired(maxRecords);
  }

  @Override
  public void afterCommit(Runnable action) {
    delegate.afterCommit(action);
  }

  @Override
  public int maxKeyLength() {
    return delegate.maxKeyLength();
  }
}
