package io.idempotent.examples.scenarios;

import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingCallClaim;
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

  /** The engine renews a running call's lease through its claim: each renewal that kept it is counted. */
  @Override
  protected CallClaim forward(CallClaim claim) {
    return new ForwardingCallClaim(claim) {
      @Override
      public boolean renew(Duration lease) {
        boolean renewed = super.renew(lease);
        if (renewed) {
          renewals.incrementAndGet();
        }
        return renewed;
      }
    };
  }
}
