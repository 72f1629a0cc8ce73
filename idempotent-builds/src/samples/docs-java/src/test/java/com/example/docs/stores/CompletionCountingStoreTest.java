package com.example.docs.stores;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.ManualTimeSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

// README snippet: stores-decorator

class CompletionCountingStoreTest {

  @Test
  void aCallsCompletion_isCounted_andItsReplaysAreNot() {
    ManualTimeSource time = new ManualTimeSource();
    CompletionCountingStore store =
        new CompletionCountingStore(CaffeineIdempotencyStore.builder().ticker(time::read).build());
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).time(time).build());
    AtomicInteger charges = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      idempotency.call("charge", String.class).key("order-1").run(() -> "charged " + charges.incrementAndGet());
    }
    assertThat(charges).hasValue(1);
    assertThat(store.completions).hasValue(1);
  }
}
