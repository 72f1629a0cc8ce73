package io.idempotent.examples.scenarios;

import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Passes every call to a store and counts the lease renewals that succeeded. Thread-safe. */
final class RenewalCountingStore extends ForwardingIdempotencyStore {

  private final AtomicInteger renewals = new AtomicInteger();

  RenewalCountingStore(IdempotencyStore store) {
    super(store);
  }

  int renewals() {
    return renewals.get();
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    boolean renewed = super.renew(key, owner, lease);
    if (renewed) {
      renewals.incrementAndGet();
    }
    return renewed;
  }
}
