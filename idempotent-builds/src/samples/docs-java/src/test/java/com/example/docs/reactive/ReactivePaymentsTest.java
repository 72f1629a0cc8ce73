package com.example.docs.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.docs.reactive.ReactivePayments.CardDeclinedException;
import com.example.docs.reactive.ReactivePayments.Receipt;
import io.idempotent.CallOutcome;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** docs/REACTIVE.md's snippets, run: each charge reaches the gateway once. */
class ReactivePaymentsTest {

  private static final Duration LONG = Duration.ofSeconds(30);
  private final AtomicInteger charges = new AtomicInteger();
  private final ReactivePayments.Gateway gateway = (orderId, cents) -> Mono.fromSupplier(() -> {
    charges.incrementAndGet();
    if (cents > 10_000) {
      throw new CardDeclinedException("over the card's limit");
    }
    return new Receipt(orderId, cents);
  });

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void theWovenMethod_chargesOnceWhenSubscribed_andReplaysADecline() {
    Idempotency idempotency = Idempotency.install(
        IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    ReactivePayments payments = new ReactivePayments(gateway, idempotency);

    Mono<Receipt> charge = payments.charge("o-1", 500);
    assertThat(charges).hasValue(0); // not subscribed yet
    assertThat(charge.block(LONG)).isEqualTo(new Receipt("o-1", 500));
    assertThat(payments.charge("o-1", 500).block(LONG)).isEqualTo(new Receipt("o-1", 500));
    assertThatThrownBy(() -> payments.charge("o-2", 20_000).block(LONG)).isInstanceOf(CardDeclinedException.class);
    assertThatThrownBy(() -> payments.charge("o-2", 20_000).block(LONG)).isInstanceOf(CardDeclinedException.class);
    assertThat(charges).hasValue(2);
  }

  @Test
  void theProgrammaticCall_chargesOnce_andTellsAReplay() {
    Idempotency idempotency = Idempotency.create(
        IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    ReactivePayments payments = new ReactivePayments(gateway, idempotency);

    assertThat(payments.chargeWithoutWeaving("o-1", 500).block(LONG).outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(payments.chargeWithoutWeaving("o-1", 500).block(LONG).outcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(charges).hasValue(1);
  }
}
