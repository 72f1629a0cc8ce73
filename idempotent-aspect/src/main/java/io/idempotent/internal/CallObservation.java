package io.idempotent.internal;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyObserver;
import io.idempotent.IdempotencyObserver.ObservedCall;
import io.idempotent.IdempotencyObserver.Outcome;
import io.idempotent.IdempotencyStoreException;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * One call under an {@link IdempotencyObserver}: starts it, tells how the call ended and ends it. How it
 * ended follows from what the engine returned or threw and the outcome it gave the call;
 * the two things neither shows (the call waited before its replay; the store failed after the method
 * returned) the engine notes here as it emits their events. Used only when an observer is configured;
 * one instance per call, on the calling thread.
 */
final class CallObservation {
  private static final System.Logger LOG = System.getLogger("io.idempotent");


  /**
   * This thread's slot for the observed call running on it, to which the engine's notes go; nested calls
   * stack. One look-up per call: the call keeps its thread's slot and puts the outer call back in it.
   */
  private static final ThreadLocal<Slot> CURRENT = ThreadLocal.withInitial(Slot::new);

  private final CallPlan plan;
  private final ObservedCall handle;
  private final Slot slot;
  private final CallObservation outer;
  private boolean waited;
  private Throwable storeError;

  private CallObservation(CallPlan plan, ObservedCall handle, Slot slot) {
    this.plan = plan;
    this.handle = handle;
    this.slot = slot;
    this.outer = slot.call;
  }

  /** The observed call running on one thread. */
  private static final class Slot {
    CallObservation call;
  }

  /**
   * Starts observing a call on this thread: tells the observer, and collects the engine's notes until
   * {@link #returned} or {@link #thrown}.
   */
  static CallObservation start(IdempotencyObserver observer, String store, CallPlan plan) {
    ObservedCall handle = handle(observer, store, plan);
    Slot slot = CURRENT.get();
    CallObservation call = new CallObservation(plan, handle, slot);
    slot.call = call;
    return call;
  }

  /** The call returned {@code value}, ending as {@code returned}: ends it now, or when its stage completes. */
  void returned(Object value, CallOutcome returned) {
    slot.call = outer;
    Outcome outcome = outcomeOfReturned(returned);
    if (plan.shape == CallPlan.ResultShape.STAGE && value instanceof CompletableFuture<?> stage) {
      endWhenDone(handle, outcome, storeError, stage);
    } else {
      end(handle, outcome, storeError);
    }
  }

  /** The call ended with {@code t}: after it ran or replayed ({@code outcome}), or refused (null). */
  void thrown(Throwable t, CallOutcome outcome) {
    slot.call = outer;
    end(handle, outcomeOfThrown(t, outcome), t);
  }

  /**
   * What the engine reports of the observed call on this thread as it emits each event. Only two matter:
   * that it waited, or that the store failed; the other events cost no look-up.
   */
  static void note(CallPlan plan, Type type, Throwable error) {
    if (type != Type.WAITED && type != Type.STORE_ERROR) {
      return;
    }
    CallObservation call = CURRENT.get().call;
    if (call == null || call.plan != plan) {
      return; // another thread (lease renewal, a stage's completion) or another call's event
    }
    if (type == Type.WAITED) {
      call.waited = true;
    } else {
      call.storeError = error;
    }
  }

  private Outcome outcomeOfReturned(CallOutcome returned) {
    return outcomeOfReturned(returned, waited, storeError);
  }

  private Outcome outcomeOfThrown(Throwable t, CallOutcome last) {
    return outcomeOfThrown(t, last, waited, storeError);
  }

  private static Outcome outcomeOfReturned(CallOutcome returned, boolean waited, Throwable storeError) {
    return switch (returned) {
      case REPLAYED -> waited ? Outcome.WAITED : Outcome.REPLAYED;
      case SKIPPED -> Outcome.SKIPPED;
      case UNPROTECTED -> Outcome.KEY_MISSING;
      case EXECUTED -> storeError != null ? Outcome.STORE_ERROR : Outcome.EXECUTED;
    };
  }

  private static Outcome outcomeOfThrown(Throwable t, CallOutcome last, boolean waited, Throwable storeError) {
    if (last == CallOutcome.REPLAYED) {
      return waited ? Outcome.WAITED : Outcome.REPLAYED; // a recorded final failure, thrown again
    }
    if (last == CallOutcome.UNPROTECTED) {
      return Outcome.KEY_MISSING;
    }
    if (t == storeError) {
      return Outcome.STORE_ERROR; // the outcome could not be recorded in the caller's transaction
    }
    if (last == CallOutcome.EXECUTED) {
      return Outcome.FAILED; // the method ran and threw, whatever it threw
    }
    if (t instanceof IdempotencyInProgressException) {
      return Outcome.IN_PROGRESS;
    }
    if (t instanceof IdempotencyKeyReusedException) {
      return Outcome.KEY_REUSED;
    }
    if (t instanceof IdempotencyKeyException) {
      return Outcome.KEY_MISSING;
    }
    if (t instanceof IdempotencyStoreException) {
      return Outcome.STORE_ERROR;
    }
    return Outcome.FAILED;
  }

  /**
   * An asynchronous call ({@link AsyncCall}) under an observer: started on the subscribing thread and
   * detached at once (it ends on another thread); {@link Async#ended} or {@link Async#failed} ends it.
   */
  static Async startAsync(IdempotencyObserver observer, String store, CallPlan plan) {
    ObservedCall handle = handle(observer, store, plan);
    if (handle != null) {
      try {
        handle.detached();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "An idempotency observer threw when its call was detached", e);
      }
    }
    return new Async(handle);
  }

  /** The observed asynchronous call: ended once, with what the call ended with. */
  static final class Async {
    private final ObservedCall handle;

    private Async(ObservedCall handle) {
      this.handle = handle;
    }

    /** It ended with {@code outcome}; {@code waited}: after waiting for a duplicate. */
    void ended(CallOutcome outcome, boolean waited) {
      end(handle, outcomeOfReturned(outcome, waited, null), null);
    }

    /** It failed with {@code t}: after it ran or replayed ({@code last}), or refused (null). */
    void failed(Throwable t, CallOutcome last, boolean waited) {
      end(handle, outcomeOfThrown(t, last, waited, null), t);
    }
  }

  private static ObservedCall handle(IdempotencyObserver observer, String store, CallPlan plan) {
    try {
      return observer.start(plan.name, store);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "An idempotency observer threw on the start of " + plan.description, e);
      return null;
    }
  }

  private static void endWhenDone(ObservedCall handle, Outcome outcome, Throwable storeError, CompletableFuture<?> stage) {
    if (handle == null) {
      return;
    }
    if (!stage.isDone()) {
      try {
        handle.detached();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "An idempotency observer threw when its call was detached", e);
      }
    }
    var unused = stage.whenComplete((value, error) -> { // observes the stage: the caller holds it
      if (error == null) {
        end(handle, outcome, storeError);
      } else {
        end(handle, outcome == Outcome.EXECUTED ? Outcome.FAILED : outcome, unwrap(error));
      }
    });
  }

  private static void end(ObservedCall handle, Outcome outcome, Throwable error) {
    if (handle == null) {
      return;
    }
    try {
      handle.end(outcome, error);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "An idempotency observer threw on " + outcome, e);
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
