package io.idempotent.examples.scenarios;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Passes every call to a store and counts the lease renewals that succeeded. Thread-safe. */
final class RenewalCountingStore implements IdempotencyStore {

  private final IdempotencyStore store;
  private final AtomicInteger renewals = new AtomicInteger();

  RenewalCountingStore(IdempotencyStore store) {
    this.store = store;
  }

  int renewals() {
    return renewals.get();
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    boolean renewed = store.renew(key, owner, lease);
    if (renewed) {
      renewals.incrementAndGet();
    }
    return renewed;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return store.claim(key, fingerprint, owner, lease);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return store.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    return store.release(key, owner);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return store.find(key);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return store.purgeExpired(maxRecords);
  }

  @Override
  public void afterCommit(Runnable action) {
    store.afterCommit(action);
  }

  @Override
  public CompletionStage<?> changeSignal(String key) {
    return store.changeSignal(key);
  }

  @Override
  public int maxKeyLength() {
    return store.maxKeyLength();
  }
}
