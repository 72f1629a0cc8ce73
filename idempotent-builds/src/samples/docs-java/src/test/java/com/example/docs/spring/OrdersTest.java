package com.example.docs.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** docs/SPRING.md's Orders, without a Spring context: its private methods are protected by weaving alone. */
class OrdersTest {

  @Test
  void aRetriedCheckoutInsertsAndChargesOnce() {
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    AtomicInteger rows = new AtomicInteger();
    AtomicInteger charges = new AtomicInteger();
    Orders orders = new Orders((orderId, cart) -> {
      rows.incrementAndGet();
      return new Receipt(orderId, cart.sku());
    }, (orderId, total) -> {
      charges.incrementAndGet();
      return new Charge(orderId, total);
    });
    Cart cart = new Cart("A-1", new Money(1999, "EUR"));

    Receipt first = orders.checkout("o-1", cart);

    assertThat(orders.checkout("o-1", cart)).isEqualTo(first);
    assertThat(rows).hasValue(1);
    assertThat(charges).hasValue(1);
  }
}
