package io.idempotent.micrometer;

import io.idempotent.IdempotencyObserver.Outcome;
import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The observation {@value #NAME}, contextual name {@code idempotent <call name>}, with three
 * low-cardinality key values: {@value #CALL_NAME}, {@value #STORE} and {@value #OUTCOME} (the outcome in
 * lower case, as the {@code outcome} tag of {@link MicrometerIdempotency#CALLS}; {@code unknown} while the
 * call runs). No high-cardinality key values: the key and the arguments are never part of an observation.
 * Thread-safe.
 */
public class DefaultIdempotentCallObservationConvention implements IdempotentCallObservationConvention {

  /** The observation's name. */
  public static final String NAME = "idempotent.call";
  /** Key of the call's namespace. */
  public static final String CALL_NAME = "idempotent.name";
  /** Key of the call's store. */
  public static final String STORE = "idempotent.store";
  /** Key of the call's outcome. */
  public static final String OUTCOME = "idempotent.outcome";

  static final DefaultIdempotentCallObservationConvention INSTANCE = new DefaultIdempotentCallObservationConvention();

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(IdempotentCallContext context) {
    return "idempotent " + context.callName();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(IdempotentCallContext context) {
    Outcome outcome = context.outcome();
    return KeyValues.of(
        CALL_NAME, context.callName(),
        STORE, context.store(),
        OUTCOME, outcome == null ? "unknown" : tagValue(outcome));
  }

  /** An outcome as a tag value: its name in lower case. */
  static String tagValue(Outcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT);
  }
}
