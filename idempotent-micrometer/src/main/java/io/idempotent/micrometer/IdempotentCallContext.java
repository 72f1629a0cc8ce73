package io.idempotent.micrometer;

import io.idempotent.IdempotencyObserver.Outcome;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link Observation} of one idempotent call knows: the call's namespace and store from its start,
 * its outcome once it has ended. Never the key or an argument. Read by an {@link
 * IdempotentCallObservationConvention} and by observation handlers. Written on the thread that ends the
 * call; read it after the observation stopped, or on that thread.
 */
public final class IdempotentCallContext extends Observation.Context {

  private final String callName;
  private final String store;
  private volatile @Nullable Outcome outcome;

  IdempotentCallContext(String callName, String store) {
    this.callName = callName;
    this.store = store;
  }

  /** The call's namespace (the annotation's {@code name}). */
  public String callName() {
    return callName;
  }

  /** The name under which the call's store is registered in the configuration. */
  public String store() {
    return store;
  }

  /** How the call ended; null while it runs. */
  public @Nullable Outcome outcome() {
    return outcome;
  }

  void outcome(Outcome outcome) {
    this.outcome = outcome;
  }
}
