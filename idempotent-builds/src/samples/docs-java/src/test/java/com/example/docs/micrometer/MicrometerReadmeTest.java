package com.example.docs.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyListener;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.micrometer.MicrometerIdempotency;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** idempotent-micrometer's README: a configuration instrumented, its own listener kept. */
class MicrometerReadmeTest {

  @Test
  void callsAreTimedAndTheListenerStillHearsThem() {
    List<IdempotencyEvent> heard = new CopyOnWriteArrayList<>();
    IdempotencyListener auditLog = heard::add;
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    ObservationRegistry observationRegistry = ObservationRegistry.create();

    // README snippet: micrometer-instrument
    Idempotency.global().call("payments.charge", String.class).key("order-1").execute(() -> "charged");
    Idempotency.global().call("payments.charge", String.class).key("order-1").execute(() -> "charged");

    assertThat(meterRegistry.find(MicrometerIdempotency.CALLS).tag("outcome", "replayed").timer())
        .isNotNull()
        .satisfies(t -> assertThat(t.count()).isEqualTo(1));
    assertThat(heard).isNotEmpty();
  }
}
