package io.idempotent.internal;

import io.idempotent.CallOutcome;
import io.idempotent.Effects;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.OnInProgress;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ChangeSignals;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One asynchronous call ({@link #execute}): the engine's algorithm (claim, run, record or
 * release, replay, wait) as steps that each run on the store-call executor and hand on to the next, so
 * no thread waits for a store, a running duplicate or the method (docs/DESIGN.md §4, "Asynchronous calls").
 * The steps of one call run one at a time; {@link #out} is its result. Cancelling it before the method
 * started releases the key; once the method runs, its stage is left to finish and its outcome recorded, since
 * its effect may have happened already.
 */
// the stages its steps chain are followed by the steps themselves, which complete out with any failure
@SuppressWarnings("FutureReturnValueIgnored")
final class AsyncCall {

  private final IdempotencyEngine engine;
  private final CallEvents events;
  private final OutcomeRecorder recorder;
  private final LeaseRenewer renewer;
  private final EngineSettings settings;
  private final CallPlan plan;
  private final IdempotencyEngine.AsyncInvocation invocation;
  private final Executor storeCalls;
  private final CompletableFuture<IdempotencyEngine.Result> out = new CompletableFuture<>();

  private IdempotencyStore store;
  private String key;
  private String fingerprint;
  private String owner;
  private Duration lease;
  /** The method's stage once it started: left to finish when {@link #out} is cancelled. */
  private volatile CompletionStage<?> running;
  /** The wait's deadline on the engine's clock, once a duplicate in progress was met with WAIT. */
  private long deadline;
  private boolean waiting;
  private boolean waited;
  /** How a call that failed had ended: ran (EXECUTED), replayed a final failure, ran unprotected, or null. */
  private CallOutcome failedAs;
  /** The observer's view of this call, when one is configured. */
  private CallObservation.Async observation;
  private long pause = DuplicateWait.FIRST_POLL_NANOS;

  private AsyncCall(IdempotencyEngine engine, CallPlan plan, IdempotencyEngine.AsyncInvocation invocation,
      Executor storeCalls) {
    this.engine = engine;
    this.events = engine.events();
    this.recorder = engine.recorder();
    this.renewer = engine.renewer();
    this.settings = engine.settings();
    this.plan = plan;
    this.invocation = invocation;
    this.storeCalls = storeCalls;
    out.whenComplete((result, error) -> {
      if (out.isCancelled()) {
        failedAs = running != null ? CallOutcome.EXECUTED : null;
      }
      if (observation != null) {
        if (error == null) {
          observation.ended(result.outcome(), waited);
        } else {
          observation.failed(IdempotencyEngine.unwrap(error), failedAs, waited);
        }
      }
    });
  }

  /**
   * Runs {@code invocation} at most once per (name, scope, key), as {@link IdempotencyEngine#call} does,
   * without a thread waiting: every store call runs on {@code storeCalls}, {@code WAIT} waits for the
   * store's change signal or a timer, and the result arrives as the returned stage. Nothing is claimed
   * before this method is called. Cancelling the returned stage before the method started releases the key;
   * after, the method's stage is not cancelled: it runs to its end and its outcome is recorded (a value
   * completes the key, a failure releases it), so that a retry replays an effect that may have happened
   * rather than make it again. {@link IdempotencyEngine#lastOutcome()} is not set: the outcome is in the
   * result.
   */
  static CompletableFuture<IdempotencyEngine.Result> execute(IdempotencyEngine engine, CallPlan plan, String key,
      String scope, Object[] payload, IdempotencyEngine.AsyncInvocation invocation, Executor storeCalls) {
    return new AsyncCall(engine, plan, invocation, storeCalls).start(key, scope, payload);
  }

  /** Decides on the caller's thread what needs no store, then claims on the executor. */
  private CompletableFuture<IdempotencyEngine.Result> start(String key, String scope, Object[] payload) {
    try {
      if (!settings.enabled()) {
        runUnprotected();
        return out;
      }
      if (settings.observer() != null) {
        observation = CallObservation.startAsync(settings.observer(),
            plan.storeName.isEmpty() ? settings.defaultStoreName() : plan.storeName, plan);
      }
      plan.checkResultType(settings.codec()); // a result no retry could read back is refused before it runs
      if (IdempotencyEngine.isBlank(key) || (plan.scoped && IdempotencyEngine.isBlank(scope))) {
        engine.missingKey(plan, key, scope);
        runUnprotected();
        return out;
      }
      store = settings.store(plan.storeName);
      this.key = StoredKeys.compose(plan.name, scope, key, KeyLimits.rulesOf(store));
      fingerprint = plan.checkPayload ? Fingerprints.of(payload) : "";
      lease = plan.lease != null ? plan.lease : settings.defaultLease();
      owner = engine.newOwner();
      storeCalls.execute(this::claim);
    } catch (Throwable t) {
      out.completeExceptionally(t);
    }
    return out;
  }

  private void runUnprotected() throws Throwable {
    CompletionStage<?> stage = started();
    stage.whenComplete((value, error) -> {
      if (error != null) {
        fail(IdempotencyEngine.unwrap(error), CallOutcome.UNPROTECTED);
      } else {
        out.complete(new IdempotencyEngine.Result(value, CallOutcome.UNPROTECTED));
      }
    });
  }

  /** Claims the key; runs, replays, refuses or waits by what the store answers. */
  private void claim() {
    if (out.isDone()) {
      return; // cancelled before its claim: nothing was claimed
    }
    try {
      // as in the blocking call: an outcome on its way to the store from this JVM is still in progress
      // claimed on a thread of the executor, where no transaction of the caller's can be: a call that
      // declares nothing is recorded on its own, in every mode (docs/REACTIVE.md, "Transactions")
      CallClaim call = renewer.recording(store, key) ? null
          : engine.claim(plan, store, key, fingerprint, owner, lease,
              plan.effects == Effects.UNDECLARED ? Effects.EXTERNAL : plan.effects);
      ClaimResult claim = call != null ? call.result()
          : ClaimResult.existing(IdempotencyRecord.inProgress(key, fingerprint, null));
      if (claim.claimed()) {
        run(call);
        return;
      }
      answer(claim.existing());
    } catch (Throwable t) {
      out.completeExceptionally(t);
    }
  }

  /** A record another call holds or completed: replays it, refuses, or waits for it. */
  private void answer(IdempotencyRecord record) {
    engine.checkFingerprint(plan, record, fingerprint, key);
    if (record.state() == RecordState.COMPLETED) {
      end(engine.replay(plan, record.outcome(), key));
    } else if (plan.onInProgress != OnInProgress.WAIT) {
      end(engine.refuseInProgress(plan, key));
    } else {
      awaitChange();
    }
  }

  private void end(IdempotencyEngine.Ending ending) {
    if (ending.thrown() != null) {
      fail(ending.thrown(), ending.outcome());
    } else {
      out.complete(new IdempotencyEngine.Result(ending.value(), ending.outcome()));
    }
  }

  private void run(CallClaim claim) {
    if (claim.result().status() == ClaimResult.Status.TAKEN_OVER) {
      engine.emit(Type.LEASE_TAKEN_OVER, plan, key, null);
    }
    LeaseRenewer.Renewal renewal = settings.leaseRenewal()
        ? renewer.register(plan, store, key, claim, lease, recorder.maxRunTime(plan))
        : null;
    if (out.isDone()) { // cancelled while it claimed
      IdempotencyEngine.cancel(renewal);
      recorder.onFailure(plan, store, key, claim, lease, null, new CancellationException("cancelled"));
      return;
    }
    CompletionStage<?> stage;
    try {
      stage = started();
    } catch (Throwable t) {
      IdempotencyEngine.cancel(renewal);
      recorder.onFailure(plan, store, key, claim, lease, renewal, t);
      fail(t, CallOutcome.EXECUTED);
      return;
    }
    running = stage;
    stage.whenCompleteAsync((value, error) -> {
      IdempotencyEngine.cancel(renewal);
      if (error != null) {
        Throwable cause = IdempotencyEngine.unwrap(error);
        recorder.onFailure(plan, store, key, claim, lease, renewal, cause);
        fail(cause, CallOutcome.EXECUTED);
        return;
      }
      try {
        // recorded on its own: the result arrives on no thread whose transaction the method's work is in
        recorder.complete(plan, store, key, claim, lease, renewal, value, true);
        out.complete(new IdempotencyEngine.Result(value, CallOutcome.EXECUTED));
      } catch (Throwable t) {
        fail(t, CallOutcome.EXECUTED); // it ran; its outcome could not be recorded
      }
    }, storeCalls);
  }

  /** Ends the call with {@code t}, after it ended as {@code as} (null: refused without an answer). */
  private void fail(Throwable t, CallOutcome as) {
    failedAs = as;
    out.completeExceptionally(t);
  }

  private CompletionStage<?> started() throws Throwable {
    CompletionStage<?> stage = invocation.start();
    return stage != null ? stage : CompletableFuture.completedFuture(null);
  }

  /**
   * Waits, holding no thread, for the store's change signal (or a poll pause when it has none), then
   * looks at the record again. The signal cannot tell when a dead owner's lease runs out, so the record is
   * looked at again at least once a lease (as {@link DuplicateWait} does).
   */
  private void awaitChange() {
    long now = settings.time().nanoTime();
    if (!waiting) {
      waiting = true;
      Duration timeout = plan.waitTimeout != null ? plan.waitTimeout : settings.defaultWaitTimeout();
      deadline = now + timeout.toNanos();
    }
    long remaining = deadline - now;
    if (remaining <= 0) {
      out.completeExceptionally(DuplicateWait.stillInProgress(events, plan, key));
      return;
    }
    CompletableFuture<Object> wake = new CompletableFuture<>();
    CompletionStage<?> signal = store instanceof ChangeSignals signals ? signals.changeSignal(key) : null;
    long delay;
    if (signal != null) {
      signal.whenComplete((value, error) -> wake.complete(value));
      delay = Math.min(remaining, lease.toNanos());
    } else {
      delay = Math.min(pause, remaining);
      pause = Math.min(pause * 2, DuplicateWait.MAX_POLL_NANOS);
    }
    wake.completeOnTimeout(null, delay, TimeUnit.NANOSECONDS)
        .whenCompleteAsync((value, error) -> lookAgain(), storeCalls);
  }

  private void lookAgain() {
    if (out.isDone()) {
      return; // cancelled while it waited
    }
    try {
      Optional<IdempotencyRecord> found;
      try {
        found = store.find(key);
      } catch (RuntimeException e) {
        engine.emit(Type.STORE_ERROR, plan, key, e);
        throw new IdempotencyStoreException("The idempotency store failed while waiting for a call of "
            + plan.description, e, plan.name, Hashing.shortReference(key));
      }
      if (found.isPresent() && found.get().state() != RecordState.COMPLETED) {
        awaitChange();
        return;
      }
      if (!waited) {
        waited = true;
        engine.emit(Type.WAITED, plan, key, null);
      }
      if (found.isEmpty()) {
        claim(); // released, or its lease ran out: claim again, with the same deadline
      } else {
        answer(found.get());
      }
    } catch (Throwable t) {
      out.completeExceptionally(t);
    }
  }
}
