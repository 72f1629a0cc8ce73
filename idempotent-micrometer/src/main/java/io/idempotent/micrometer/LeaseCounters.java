package io.idempotent.micrometer;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counts the lease events ({@link MicrometerIdempotency#LEASE_TAKEOVERS}, {@link MicrometerIdempotency#LEASES_LOST}). */
final class LeaseCounters implements IdempotencyListener {

  private final MeterRegistry meters;

  LeaseCounters(MeterRegistry meters) {
    this.meters = meters;
  }

  @Override
  public void onEvent(IdempotencyEvent event) {
    switch (event.type()) {
      case LEASE_TAKEN_OVER -> count(MeterNames.LEASE_TAKEOVERS,
          "Expired claims of other owners taken over", event.name());
      case LEASE_LOST -> count(MeterNames.LEASES_LOST,
          "Claims lost before their owner could complete, renew or release them", event.name());
      default -> { }
    }
  }

  private void count(String meter, String description, String name) {
    Counter.builder(meter).description(description).tag("name", name).register(meters).increment();
  }
}
