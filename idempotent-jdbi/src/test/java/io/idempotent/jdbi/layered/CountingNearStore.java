package io.idempotent.jdbi.layered;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A near store that counts how often it is asked, delegating to a real one: a caller that waits by
 * polling would show up here even though its polls never reach the database.
 */
final class CountingNearStore implements IdempotencyStore {

  final AtomicInteger lookups = new AtomicInteger();
  private final IdempotencyStore target;

  CountingNearStore(IdempotencyStore target) {
    this.target = target;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return target.claim(key, fingerprint, owner, lease);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return target.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    return target.release(key, owner);
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    return target.renew(key, owner, lease);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    lookups.incrementAndGet();
    return target.find(key);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return target.purgeExpired(maxRecords);
  }
}
