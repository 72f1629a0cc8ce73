package io.idempotent;

/**
 * Receives an event for every outcome of an idempotent call: a hook for metrics and audit. Called on
 * the calling thread (or the lease renewal thread for renewal losses); must be fast, thread-safe and
 * must not throw.
 */
@FunctionalInterface
public interface IdempotencyListener {

  void onEvent(IdempotencyEvent event);

  /** A listener that passes each event to this one and then to {@code next}. */
  default IdempotencyListener andThen(IdempotencyListener next) {
    return e -> {
      onEvent(e);
      next.onEvent(e);
    };
  }
}
