package io.idempotent.internal;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyListener;
import java.lang.System.Logger.Level;

/**
 * Where a call's events go: the configured listener (one that throws is logged and ignored) and, when an
 * observer is configured, the observation of the call in progress on this thread.
 */
final class CallEvents {
  private static final System.Logger LOG = System.getLogger("io.idempotent");


  private final IdempotencyListener listener;
  private final boolean observed;

  CallEvents(IdempotencyListener listener, boolean observed) {
    this.listener = listener;
    this.observed = observed;
  }

  void emit(Type type, CallPlan plan, String key, Throwable error) {
    if (observed) {
      CallObservation.note(plan, type, error);
    }
    if (listener != null) {
      try {
        listener.onEvent(IdempotencyEvent.ofStoredKey(type, plan.name, key, error));
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "An idempotency listener threw on " + type, e);
      }
    }
  }
}
