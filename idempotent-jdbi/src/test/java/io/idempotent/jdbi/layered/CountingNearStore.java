package io.idempotent.jdbi.layered;

import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A near store that counts how often it is asked, delegating to a real one: a caller that waits by
 * polling would show up here even though its polls never reach the database.
 */
final class CountingNearStore extends ForwardingIdempotencyStore {

  final AtomicInteger lookups = new AtomicInteger();

  CountingNearStore(IdempotencyStore target) {
    super(target);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    lookups.incrementAndGet();
    return super.find(key);
  }
}
