package io.idempotent.reliability;

import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose lease renewals can be blocked (they then fail, as when the renewing connection is
 * cut), and which counts renewals. Everything else goes to the real store. Thread-safe.
 */
final class RenewalBlockingStore extends ForwardingIdempotencyStore {

  final AtomicBoolean blocked = new AtomicBoolean();
  final AtomicInteger renewals = new AtomicInteger();
  final AtomicInteger blockedRenewals = new AtomicInteger();

  RenewalBlockingStore(IdempotencyStore delegate) {
    super(delegate);
  }

  /** The engine renews a running call's lease through its claim: each renewal is counted, or refused while blocked. */
  @Override
  protected CallClaim forward(CallClaim claim) {
    return new ForwardingCallClaim(claim) {
      @Override
      public boolean renew(Duration lease) {
        if (blocked.get()) {
          blockedRenewals.incrementAndGet();
          throw new IllegalStateException("renewal blocked by the test");
        }
        renewals.incrementAndGet();
        return super.renew(lease);
      }
    };
  }
}
