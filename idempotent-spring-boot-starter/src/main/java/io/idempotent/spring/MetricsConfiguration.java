package io.idempotent.spring;

import io.idempotent.micrometer.MicrometerIdempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Measures every call with idempotent-micrometer when it is on the class path and the application has a
 * {@link MeterRegistry} bean (Spring Boot's actuator defines one): the timer {@code idempotent.calls}, the
 * store operations' timer and the lease counters; and, with an {@link ObservationRegistry} bean, an
 * observation per call. {@code idempotent.metrics.enabled=false} turns it off.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"io.idempotent.micrometer.MicrometerIdempotency",
    "io.micrometer.core.instrument.MeterRegistry", "io.micrometer.observation.ObservationRegistry"})
@ConditionalOnProperty(prefix = "idempotent.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
class MetricsConfiguration {

  /**
   * The registries are looked up when the configuration is built, not when this bean is defined, so the
   * order of the auto-configurations does not matter.
   */
  @Bean
  ConfigInstrumentation idempotencyMetrics(ObjectProvider<MeterRegistry> meters,
      ObjectProvider<ObservationRegistry> observations, IdempotencyProperties properties) {
    return config -> {
      IdempotencyProperties.Metrics p = properties.getMetrics();
      MeterRegistry meterRegistry = meters.getIfUnique();
      ObservationRegistry observationRegistry = p.isObservations() ? observations.getIfUnique() : null;
      if (meterRegistry == null && (observationRegistry == null || observationRegistry.isNoop())) {
        return config;
      }
      MicrometerIdempotency.Builder b = MicrometerIdempotency.builder();
      if (p.getStoreOperations() != null) {
        b.storeOperations(p.getStoreOperations());
      }
      if (meterRegistry != null) {
        b.meterRegistry(meterRegistry);
      }
      if (observationRegistry != null && !observationRegistry.isNoop()) {
        b.observationRegistry(observationRegistry);
      }
      return b.build().instrument(config);
    };
  }

  /** Turns the configuration built from the properties into the one installed. */
  @FunctionalInterface
  interface ConfigInstrumentation {
    IdempotencyConfig instrument(IdempotencyConfig config);
  }
}
