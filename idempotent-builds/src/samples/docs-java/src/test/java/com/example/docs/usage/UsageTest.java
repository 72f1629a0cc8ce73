package com.example.docs.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.micrometer.MicrometerIdempotency;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** docs/USAGE.md's code: the codec with a module, the programmatic API, metrics. */
class UsageTest {

  @Test
  void theProgrammaticCallRunsOnceAndReplays_aMoneyThroughTheModule() {
    Idempotency.install(UsageSnippets.withMoneyModule(CaffeineIdempotencyStore.builder().build()));
    AtomicInteger charges = new AtomicInteger();
    PaymentGateway gateway = (id, amount) -> new Receipt(id, amount, new Money(30 + charges.incrementAndGet()));
    String orderId = "order-42";
    String userId = "user-7";
    long cents = 1999;
    List<CallResult<Receipt>> results = new ArrayList<>();

    for (int i = 0; i < 2; i++) {
      // README snippet: usage-call
      results.add(r);
    }

    assertThat(charges).hasValue(1);
    assertThat(results.get(0).replayed()).isFalse();
    assertThat(results.get(1).replayed()).isTrue();
    assertThat(results.get(1).value()).isEqualTo(new Receipt("order-42", 1999, new Money(31)));
  }

  @Test
  void instrumentedCallsAreTimed() {
    IdempotencyConfig config = IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build();
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    ObservationRegistry observationRegistry = ObservationRegistry.create();

    // README snippet: usage-micrometer
    Idempotency.global().call("payments.charge", String.class).key("order-1").execute(() -> "charged");

    assertThat(meterRegistry.find(MicrometerIdempotency.CALLS).timer()).isNotNull();
  }
}
