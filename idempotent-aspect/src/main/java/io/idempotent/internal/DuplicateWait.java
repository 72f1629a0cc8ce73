package io.idempotent.internal;

import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.TimeSource;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.ChangeSignals;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * One call's wait ({@code WAIT}) for the outcome of a duplicate in progress, across the claims it makes
 * again when the record looked gone (a claim held uncommitted elsewhere can look so): one deadline, a poll
 * pause that keeps growing, and one {@code WAITED} event (docs/DESIGN.md, "Waiting").
 */
final class DuplicateWait {

  /** A WAIT without a change signal polls the store: after 5 ms first, doubling up to 200 ms. */
  static final long FIRST_POLL_NANOS = 5_000_000L;

  static final long MAX_POLL_NANOS = 200_000_000L;

  private final TimeSource time;
  private final CallEvents events;
  private final long deadline;
  private long pause = FIRST_POLL_NANOS;
  private boolean reported;

  DuplicateWait(TimeSource time, CallEvents events, long deadline) {
    this.time = time;
    this.events = events;
    this.deadline = deadline;
  }

  /**
   * Waits for the record of the call in progress: its outcome once completed, or null once it is
   * released or its lease has run out (the caller then claims again).
   */
  IdempotencyRecord await(CallPlan plan, IdempotencyStore store, String key, Duration lease) {
    if (RunningKeys.heldByThisThread(store, key)) {
      events.emit(Type.IN_PROGRESS, plan, key, null);
      throw new IdempotencyInProgressException(
          "A call of " + plan.description + " (key#" + Hashing.shortReference(key) + ") was made again"
              + " with the same key from inside itself, on the same thread; waiting would wait for itself,"
              + " so the inner call did not run", null, plan.name, Hashing.shortReference(key));
    }
    IdempotencyRecord done;
    try {
      done = awaitCompletion(plan, store, key, lease);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's thread keeps its interrupt status
      events.emit(Type.IN_PROGRESS, plan, key, null);
      throw new IdempotencyInProgressException(
          "Interrupted while waiting for a call of " + plan.description + " with the same key (key#"
              + Hashing.shortReference(key) + ") to finish; the method did not run", e, plan.name, Hashing.shortReference(key));
    }
    if (!reported) {
      reported = true;
      events.emit(Type.WAITED, plan, key, null);
    }
    return done;
  }

  /** The wait's deadline passed with the duplicate still in progress: tells, and returns the refusal. */
  static IdempotencyInProgressException stillInProgress(CallEvents events, CallPlan plan, String key) {
    events.emit(Type.IN_PROGRESS, plan, key, null);
    return new IdempotencyInProgressException(
        "Waited for a call of " + plan.description + " with the same key (key#" + Hashing.shortReference(key)
            + ") but it is still in progress; the method did not run again", null, plan.name,
        Hashing.shortReference(key));
  }

  private IdempotencyRecord awaitCompletion(CallPlan plan, IdempotencyStore store, String key, Duration lease)
      throws InterruptedException {
    SignalWake wake = null;
    while (true) {
      long now = time.nanoTime();
      long remaining = deadline - now;
      if (remaining <= 0) {
        throw stillInProgress(events, plan, key);
      }
      CompletionStage<?> signal = store instanceof ChangeSignals signals ? signals.changeSignal(key) : null;
      if (signal != null) {
        // the store tells when the record changes, but not when the first caller's lease runs out with
        // nobody to release it: look again at least once a lease, so a dead owner is taken over here too
        if (wake == null || wake.signal != signal) {
          wake = new SignalWake(signal);
          signal.whenComplete(wake);
        }
        parkUntil(now + Math.min(remaining, lease.toNanos()), wake);
      } else {
        parkUntil(now + Math.min(pause, remaining), null);
        pause = Math.min(pause * 2, MAX_POLL_NANOS);
      }
      Optional<IdempotencyRecord> found;
      try {
        found = store.find(key);
      } catch (RuntimeException e) {
        events.emit(Type.STORE_ERROR, plan, key, e);
        throw new IdempotencyStoreException(
            "The idempotency store failed while waiting for a call of " + plan.description, e, plan.name,
            Hashing.shortReference(key));
      }
      if (found.isEmpty()) {
        return null;
      }
      if (found.get().state() == RecordState.COMPLETED) {
        return found.get();
      }
    }
  }

  /**
   * Parks the waiting thread on the engine's time source until {@code until}, or until {@code wake} (if
   * any) fires; the store is read again either way, and the wait deadline or the record decides what
   * happens next.
   */
  private void parkUntil(long until, SignalWake wake) throws InterruptedException {
    while (wake == null || !wake.fired) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (time.nanoTime() - until >= 0) {
        return;
      }
      time.parkUntil(this, until);
    }
  }

  /** Unparks the thread that waits for a store's change signal once the signal completes. */
  private static final class SignalWake implements BiConsumer<Object, Throwable> {
    final CompletionStage<?> signal;
    private final Thread waiter = Thread.currentThread();
    volatile boolean fired;

    SignalWake(CompletionStage<?> signal) {
      this.signal = signal;
    }

    @Override
    public void accept(Object value, Throwable error) {
      fired = true;
      if (Thread.currentThread() != waiter) { // a signal complete already fires on the waiter, not parked
        LockSupport.unpark(waiter);
      }
    }
  }
}
