package io.idempotent.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names an idempotent call's {@link Observation} and its key values; {@link
 * DefaultIdempotentCallObservationConvention} is the one used unless another is given to {@link
 * MicrometerIdempotency.Builder#observationConvention}. Implementations must be thread-safe.
 */
public interface IdempotentCallObservationConvention extends ObservationConvention<IdempotentCallContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof IdempotentCallContext;
  }
}
