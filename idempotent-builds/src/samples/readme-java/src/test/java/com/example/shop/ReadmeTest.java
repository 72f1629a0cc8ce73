package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The README's Java snippets, as printed: configured, then called as the README calls them. */
class ReadmeTest {

  @Test
  void theReadmesCalls_chargeOnce_replay_andRefuseTheReusedKey() {
    // README snippet: configure
    AtomicInteger charges = new AtomicInteger();
    Payments payments = new Payments((orderId, cents) -> new Receipt(orderId, cents, charges.incrementAndGet()));

    assertThatThrownBy(() -> {
      // README snippet: annotate-calls
    }).isInstanceOf(IdempotencyKeyReusedException.class);

    assertThat(charges).as("charges of order-42").hasValue(1);
    assertThat(payments.charge("order-42", 1999)).isEqualTo(new Receipt("order-42", 1999, 1));
    assertThat(charges).hasValue(1);
  }

  @Test
  void theOpeningExample_chargesOncePerOrderId() {
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    AtomicInteger charges = new AtomicInteger();
    Checkout checkout = new Checkout((orderId, amount) ->
        new Receipt(orderId, amount.cents(), charges.incrementAndGet()));

    Receipt first = checkout.charge("order-7", new Money(1999, "EUR"));
    Receipt retry = checkout.charge("order-7", new Money(1999, "EUR"));

    assertThat(retry).isEqualTo(first);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(charges).hasValue(1);
  }
}
