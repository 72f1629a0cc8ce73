package com.example.docs.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * idempotent-redis's README. Compiling its code is most of the check: the store it builds names a server
 * that is not there, which it does not reach until a call.
 */
class RedisReadmeTest {

  @Test
  void theStoreIsBuiltAndInstalledWithoutAConnection() {
    try (RedisIdempotencyStore store = RedisSnippets.installed()) {
      assertThat(Idempotency.global().config().store("")).isSameAs(store);
    }
  }

  @Test
  void theAnnotatedChargeRunsOnce() {
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    AtomicInteger charges = new AtomicInteger();
    Payments payments = new Payments((orderId, amount) -> {
      charges.incrementAndGet();
      return new Payments.Receipt(orderId, amount);
    });
    Payments.Money amount = new Payments.Money(1999, "EUR");

    assertThat(payments.charge("o-1", amount)).isEqualTo(payments.charge("o-1", amount));
    assertThat(charges).hasValue(1);
  }
}
