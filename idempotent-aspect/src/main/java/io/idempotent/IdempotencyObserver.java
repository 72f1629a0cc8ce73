package io.idempotent;

import org.jspecify.annotations.Nullable;

/**
 * Watches each idempotent call from its start to its end: the hook for timers and traces, which need
 * to know when a call began, not only how it ended ({@link IdempotencyListener} hears the ending only).
 * Set it with {@link io.idempotent.runtime.IdempotencyConfig.Builder#observer}; with none set, the engine does no work for it.
 *
 * <p>A call is observed once it reaches the engine with idempotency switched on: a key expression that
 * throws before that is not. {@link #start} is called on the calling thread before the store is touched;
 * the handle it returns is ended exactly once. Implementations must be fast and thread-safe and should
 * not throw: what they throw is logged and otherwise ignored, and never changes the call.
 *
 * <pre>{@code
 * IdempotencyConfig.builder()
 *     .store(store)
 *     .observer((name, store) -> {
 *       long start = System.nanoTime();
 *       return (outcome, error) -> timings.record(name, outcome, System.nanoTime() - start);
 *     })
 *     .build();
 * }</pre>
 */
@FunctionalInterface
public interface IdempotencyObserver {

  /** How an observed call ended. */
  enum Outcome {
    /** The method ran and returned; its outcome was recorded (or its lease was lost before it could be). */
    EXECUTED,
    /** A recorded outcome (a value or a final failure) was returned without running the method. */
    REPLAYED,
    /** The call waited for another with the same key ({@link OnInProgress#WAIT}) and returned its outcome. */
    WAITED,
    /** The key was in progress and the call returned without running ({@link OnInProgress#SKIP}). */
    SKIPPED,
    /** The key was in progress and the call was refused, at once or after waiting in vain. */
    IN_PROGRESS,
    /** The key was already used with other arguments; nothing ran. */
    KEY_REUSED,
    /** The key or scope was null or blank: the call was refused, or ran unprotected as the policy allows. */
    KEY_MISSING,
    /**
     * The method ran and threw (or its {@code CompletionStage} failed), its result could not be recorded,
     * or the call was refused by its configuration.
     */
    FAILED,
    /** The store failed: before the method ran (nothing ran), or while recording what it returned. */
    STORE_ERROR
  }

  /**
   * A call reached the engine. Called on the calling thread, before the store is touched.
   *
   * @param name the call's namespace (the annotation's {@code name}); never the key or an argument
   * @param store the name under which the call's store is registered in the configuration
   * @return the handle to end with the call's outcome; null when there is nothing to end
   */
  @Nullable ObservedCall start(String name, String store);

  /** One observed call, ended exactly once. */
  @FunctionalInterface
  interface ObservedCall {

    /**
     * The call ended. Called on the calling thread as the call returns or throws; for a method returning a
     * {@code CompletionStage}, when that stage completes, on the thread completing it (after {@link
     * #detached()} if the call returned first).
     *
     * @param outcome how it ended
     * @param error what the call threw or its stage failed with; when it returned normally, the store
     *     failure that kept its outcome from being recorded; null otherwise
     */
    void end(Outcome outcome, Throwable error);

    /**
     * The call returned a {@code CompletionStage} that is not complete yet: the calling thread is done with
     * the call, and {@link #end} follows when the stage completes, possibly on another thread. Called on the
     * calling thread; anything tied to that thread (a tracing scope) is to be closed here. Does nothing by
     * default.
     */
    default void detached() {}
  }
}
