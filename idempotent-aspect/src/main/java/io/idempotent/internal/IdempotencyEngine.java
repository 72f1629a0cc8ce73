package io.idempotent.internal;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfig;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyListener;
import io.idempotent.IdempotencyObserver;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.OnInProgress;
import io.idempotent.TimeSource;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * The state machine described in docs/DESIGN.md, Outcomes, and the one place where the algorithm lives:
 * claim, run, complete or release, replay, wait, skip, take over, fence. Knows nothing of AspectJ.
 * Thread-safe.
 */
public final class IdempotencyEngine {

  static final System.Logger LOG = System.getLogger("io.idempotent");
  private static final ThreadLocal<CallOutcome> LAST = new ThreadLocal<>();
  /** A WAIT without a change signal polls the store: after 5 ms first, doubling up to 200 ms. */
  private static final long FIRST_POLL_NANOS = 5_000_000L;
  private static final long MAX_POLL_NANOS = 200_000_000L;

  private final IdempotencyConfig config;
  private final IdempotencyListener listener;
  private final TimeSource time;
  private final IdempotencyObserver observer;
  private final LeaseRenewer renewer;
  private final String ownerPrefix;
  private final AtomicLong ownerCounter = new AtomicLong();
  /**
   * An owner token that no claim has written yet. A call takes it and gives it back only when every
   * claim it made found a live record (a replay), so a replay makes no token and each claim that may
   * have written one gets a token of its own.
   */
  private final ThreadLocal<String> unusedOwner = new ThreadLocal<>();

  public IdempotencyEngine(IdempotencyConfig config) {
    this.config = config;
    this.listener = config.listener();
    this.time = config.time();
    this.observer = config.observer();
    this.renewer = new LeaseRenewer(renewalListener(), time);
    byte[] seed = new byte[9];
    new SecureRandom().nextBytes(seed);
    this.ownerPrefix = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(seed) + '.';
  }

  public IdempotencyConfig config() {
    return config;
  }

  /**
   * How the last idempotent call on this thread ended (EXECUTED also when the method threw); null when
   * it was refused without running, or none ran on this thread yet.
   */
  public static CallOutcome lastOutcome() {
    return LAST.get();
  }

  /**
   * Forgets the outcome of the thread's previous call. Every entry point calls it first, so that a call
   * refused before it reaches the engine (a key expression that throws, a bad annotation) leaves null
   * behind, never the outcome of an earlier call.
   */
  public static void clearLastOutcome() {
    LAST.set(null);
  }

  /** What a call returned (or replayed, or skipped with), and how it ended. */
  public record Result(Object value, CallOutcome outcome) {}

  /**
   * Runs {@code invocation} at most once per (name, scope, key) and returns its value: {@link #call}
   * for callers that need only the value (the woven aspect).
   */
  public Object execute(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    if (observer == null || !config.enabled()) {
      return decide(plan, key, scope, payload, invocation); // the outcome is in LAST
    }
    CallObservation observation =
        CallObservation.start(observer, plan.storeName.isEmpty() ? config.defaultStoreName() : plan.storeName, plan);
    Object value;
    try {
      value = decide(plan, key, scope, payload, invocation);
    } catch (Throwable t) {
      observation.thrown(t);
      throw t;
    }
    observation.returned(value, LAST.get());
    return value;
  }

  /**
   * Runs {@code invocation} at most once per (name, scope, key): claims the key, then either runs the
   * method or answers from the record already there. Also leaves the outcome for {@link #lastOutcome()}.
   *
   * @param key the evaluated key (null or blank: the key is missing)
   * @param scope the evaluated scope, or null when the plan has none
   * @param payload the values to fingerprint (ignored when the plan does not check payloads)
   */
  public Result call(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    Object value = execute(plan, key, scope, payload, invocation);
    return new Result(value, LAST.get()); // the outcome decide left
  }

  /**
   * The algorithm: returns what the call returns (or replays, or skips with) and leaves how it ended in
   * {@link #LAST}, which every way out that returns sets last.
   */
  private Object decide(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    // a call refused without running leaves no outcome behind, never a stale one from an earlier call
    // (set, not remove: the thread keeps its entry instead of making a new one per call)
    LAST.set(null);
    if (!config.enabled()) {
      return ended(invocation.proceed(), CallOutcome.UNPROTECTED);
    }
    plan.checkResultType(config.codec()); // a result no retry could read back is refused before it runs
    if (isBlank(key) || (plan.scoped && isBlank(scope))) {
      return onMissingKey(plan, key, scope, invocation);
    }
    IdempotencyStore store = config.store(plan.storeName);
    String storedKey = StoredKeys.compose(plan.name, scope, key, store.keyRules());
    String fingerprint = plan.checkPayload ? Fingerprints.of(payload) : "";
    Duration lease = plan.lease != null ? plan.lease : config.defaultLease();
    String owner = takeOwner();
    Waiting waiting = null;
    while (true) {
      // a call of this key whose outcome is on its way to the store from here is still in progress, even
      // where the store let its lease run out meanwhile: no caller in this JVM takes it over
      ClaimResult claim = renewer.recording(store, storedKey)
          ? ClaimResult.existing(IdempotencyRecord.inProgress(storedKey, fingerprint, null))
          : claim(plan, store, storedKey, fingerprint, owner, lease);
      if (claim.claimed()) {
        return runClaimed(plan, store, storedKey, owner, lease, claim, invocation);
      }
      IdempotencyRecord record = claim.existing();
      checkFingerprint(plan, record, fingerprint, storedKey);
      if (record.state() == RecordState.COMPLETED) {
        unusedOwner.set(owner); // every claim of this call found a live record: the token was never written
        return replay(plan, record.outcome(), storedKey);
      }
      if (plan.onInProgress != OnInProgress.WAIT) {
        return refuseInProgress(plan, storedKey);
      }
      if (waiting == null) {
        Duration timeout = plan.waitTimeout != null ? plan.waitTimeout : config.defaultWaitTimeout();
        waiting = new Waiting(time.nanoTime() + timeout.toNanos()); // at most a day: no overflow
      }
      IdempotencyRecord done = await(plan, store, storedKey, waiting, lease);
      if (done != null) {
        checkFingerprint(plan, done, fingerprint, storedKey);
        return replay(plan, done.outcome(), storedKey);
      }
      // the first call released the key or its lease ran out: claim again
    }
  }

  private static Object ended(Object value, CallOutcome outcome) {
    LAST.set(outcome);
    return value;
  }

  private Object onMissingKey(CallPlan plan, String key, String scope, Invocation invocation) throws Throwable {
    emit(Type.KEY_MISSING, plan, null, null);
    if (config.missingKeyPolicy() == MissingKeyPolicy.RUN_UNPROTECTED) {
      return ended(invocation.proceed(), CallOutcome.UNPROTECTED);
    }
    String what = isBlank(key) ? "key" : "scope";
    String value = (isBlank(key) ? key : scope) == null ? "null" : "a blank string";
    throw new IdempotencyKeyException(
        "The " + what + " of " + plan.description + " evaluated to " + value + "; the method did not run",
        null, plan.name, null);
  }

  private Object runClaimed(CallPlan plan, IdempotencyStore store, String key, String owner, Duration lease,
      ClaimResult claim, Invocation invocation) throws Throwable {
    if (claim.status() == ClaimResult.Status.TAKEN_OVER) {
      emit(Type.LEASE_TAKEN_OVER, plan, key, null);
    }
    return ended(run(plan, store, key, owner, lease, invocation), CallOutcome.EXECUTED);
  }

  /** A live claim of the same key, and a policy that does not wait for it: THROW throws, SKIP skips. */
  private Object refuseInProgress(CallPlan plan, String key) {
    if (plan.onInProgress == OnInProgress.SKIP) {
      emit(Type.SKIPPED, plan, key, null);
      Object skipped = switch (plan.shape) {
        case OPTIONAL -> Optional.empty();
        case STAGE -> CompletableFuture.completedFuture(null);
        default -> null;
      };
      return ended(skipped, CallOutcome.SKIPPED);
    }
    emit(Type.IN_PROGRESS, plan, key, null);
    throw new IdempotencyInProgressException(
        "A call of " + plan.description + " with the same key is in progress (key#"
            + Hashing.shortReference(key) + "); the method did not run again", null, plan.name, reference(key));
  }

  /**
   * One call's wait for another's outcome, across the claims it makes again when the record looked gone (a
   * claim held uncommitted elsewhere can look so): one deadline, a poll pause that keeps growing, and one
   * {@code WAITED} event.
   */
  private static final class Waiting {
    final long deadline;
    long pause = FIRST_POLL_NANOS;
    boolean reported;

    Waiting(long deadline) {
      this.deadline = deadline;
    }
  }

  /**
   * Waits for the record of the call in progress: its outcome once completed, or null once it is
   * released or its lease has run out (the caller then claims again).
   */
  private IdempotencyRecord await(CallPlan plan, IdempotencyStore store, String key, Waiting waiting, Duration lease) {
    if (RunningKeys.heldByThisThread(store, key)) {
      emit(Type.IN_PROGRESS, plan, key, null);
      throw new IdempotencyInProgressException(
          "A call of " + plan.description + " (key#" + Hashing.shortReference(key) + ") was made again"
              + " with the same key from inside itself, on the same thread; waiting would wait for itself,"
              + " so the inner call did not run", null, plan.name, reference(key));
    }
    IdempotencyRecord done;
    try {
      done = awaitCompletion(plan, store, key, waiting, lease);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's thread keeps its interrupt status
      emit(Type.IN_PROGRESS, plan, key, null);
      throw new IdempotencyInProgressException(
          "Interrupted while waiting for a call of " + plan.description + " with the same key (key#"
              + Hashing.shortReference(key) + ") to finish; the method did not run", e, plan.name, reference(key));
    }
    if (!waiting.reported) {
      waiting.reported = true;
      emit(Type.WAITED, plan, key, null);
    }
    return done;
  }

  private String takeOwner() {
    String owner = unusedOwner.get();
    if (owner == null) {
      // one concatenation writes the counter's digits straight into the token: one array, one string
      return ownerPrefix + ownerCounter.incrementAndGet();
    }
    unusedOwner.set(null);
    return owner;
  }

  private ClaimResult claim(
      CallPlan plan, IdempotencyStore store, String key, String fingerprint, String owner, Duration lease) {
    try {
      return store.claimForCall(key, fingerprint, owner, lease, plan.effects);
    } catch (IdempotencyConfigurationException e) {
      throw e; // the store refuses how the call is made (undeclared effects in a transaction), not failed
    } catch (RuntimeException e) {
      emit(Type.STORE_ERROR, plan, key, e);
      throw new IdempotencyStoreException(
          "The idempotency store failed to claim a key of " + plan.description + "; the method did not run", e,
          plan.name, reference(key));
    }
  }

  private Object run(
      CallPlan plan, IdempotencyStore store, String key, String owner, Duration lease, Invocation invocation)
      throws Throwable {
    LeaseRenewer.Renewal renewal = config.leaseRenewal()
        ? renewer.register(plan, store, key, owner, lease, maxRunTime(plan))
        : null;
    Object result;
    RunningKeys running = RunningKeys.enter(store, key);
    try {
      result = invocation.proceed();
    } catch (Throwable t) {
      cancel(renewal);
      onFailure(plan, store, key, owner, lease, renewal, t);
      LAST.set(CallOutcome.EXECUTED); // it ran and threw (nested calls may have set their own outcome)
      if (plan.shape == CallPlan.ResultShape.STAGE && plan.isFinal(t)) {
        return CompletableFuture.failedFuture(t); // as every replay of this recorded failure will
      }
      throw t;
    } finally {
      running.exit();
    }
    // it ran: whatever recording does next, the caller's outcome is this call's, not a nested one's
    LAST.set(CallOutcome.EXECUTED);
    if (plan.shape == CallPlan.ResultShape.STAGE) {
      if (result == null) {
        cancel(renewal);
        complete(plan, store, key, owner, lease, renewal, null, false);
        return CompletableFuture.completedFuture(null); // as every replay of a null outcome will
      }
      return completeWhenDone(plan, store, key, owner, lease, renewal, (CompletionStage<?>) result);
    }
    cancel(renewal);
    complete(plan, store, key, owner, lease, renewal, result, false);
    return result;
  }

  private CompletableFuture<Object> completeWhenDone(CallPlan plan, IdempotencyStore store, String key,
      String owner, Duration lease, LeaseRenewer.Renewal renewal, CompletionStage<?> stage) {
    CompletableFuture<Object> out = new CompletableFuture<>();
    Thread caller = Thread.currentThread();
    AtomicBoolean returned = new AtomicBoolean();
    stage.whenComplete((value, error) -> {
      cancel(renewal);
      if (error == null) {
        // a result that arrives after the call returned, or on another thread, belongs to no transaction
        // the completing thread may have open
        boolean detached = returned.get() || Thread.currentThread() != caller;
        try {
          complete(plan, store, key, owner, lease, renewal, value, detached);
          out.complete(value);
        } catch (Throwable t) {
          out.completeExceptionally(t);
        }
      } else {
        onFailure(plan, store, key, owner, lease, renewal, unwrap(error));
        out.completeExceptionally(error);
      }
    });
    returned.set(true);
    return out;
  }

  /**
   * Records a call's result. When the store fails, the caller still gets its result, and the outcome is
   * handed to the renewer, which keeps trying to record it while the claim may still be this owner's.
   *
   * @param renewal the call's lease renewal, already cancelled (null when leases are not renewed)
   */
  private void complete(CallPlan plan, IdempotencyStore store, String key, String owner, Duration lease,
      LeaseRenewer.Renewal renewal, Object result, boolean detached) {
    boolean completed;
    StoredOutcome outcome;
    try {
      outcome = recorded(plan, result);
    } catch (IdempotencyResultException e) {
      // the result cannot be stored: release so that nothing half-written stays behind, and say why
      release(plan, store, key, owner, e);
      throw e;
    }
    try {
      completed = detached
          ? store.completeDetached(key, owner, outcome, ttl(plan))
          : store.complete(key, owner, outcome, ttl(plan));
    } catch (IdempotencyResultException e) {
      // the result cannot be stored: release so that nothing half-written stays behind, and say why
      release(plan, store, key, owner, e);
      throw e;
    } catch (IdempotencyRollbackRequiredException e) {
      // a store writing inside the caller's transaction could not record the outcome there: the caller
      // must see it, so that its transaction (holding the method's writes) rolls back
      emit(Type.STORE_ERROR, plan, key, e);
      throw e;
    } catch (RuntimeException e) {
      storeFailedAfterRun(plan, key, e);
      recordLater(plan, store, key, owner, lease, renewal, outcome, false);
      return;
    }
    if (completed) {
      emit(Type.EXECUTED, plan, key, null);
    } else {
      leaseLost(plan, store, key, "complete");
    }
  }

  /**
   * Hands an outcome the store failed to record to the renewer, which tries again on the store's lane
   * (as a detached completion: the lane has no transaction of the caller's) until it lands or the claim
   * is lost. (A repeat after an attempt that committed but whose answer was lost finds no claim either,
   * and is reported as a lost claim although the outcome is recorded.)
   */
  private void recordLater(CallPlan plan, IdempotencyStore store, String key, String owner, Duration lease,
      LeaseRenewer.Renewal renewal, StoredOutcome outcome, boolean failure) {
    Duration ttl = ttl(plan);
    renewer.recordLater(plan, store, key, owner, lease, maxRunTime(plan), renewal, new LeaseRenewer.LateRecording() {
      @Override
      public boolean attempt() {
        return store.completeDetached(key, owner, outcome, ttl);
      }

      @Override
      public boolean failure() {
        return failure;
      }
    });
  }

  /**
   * What a store keeps of a result. A value of a type that cannot change is kept as the object itself,
   * encoded only if the store asks. Any other value is encoded now, before the caller gets it back, and
   * kept only as that encoding: a caller that changes the object it got can then never change what a
   * replay returns, on any store, since every replay decodes a copy of its own.
   *
   * @throws io.idempotent.IdempotencyResultException if the value cannot be encoded
   */
  private StoredOutcome recorded(CallPlan plan, Object result) {
    if (result == null) {
      return StoredOutcome.nullValue();
    }
    if (plan.immutableResult) {
      return StoredOutcome.value(result, () -> config.codec().encode(result, plan.resultType));
    }
    return StoredOutcome.valueJson(config.codec().encode(result, plan.resultType));
  }

  /** The method ran; its result goes back to the caller while its outcome is tried again in the background. */
  private void storeFailedAfterRun(CallPlan plan, String key, RuntimeException e) {
    emit(Type.STORE_ERROR, plan, key, e);
    LOG.log(Level.WARNING, "Could not record the outcome of " + plan.description + " (key#"
        + Hashing.shortReference(key) + "); trying again in the background while the claim is held. If the"
        + " store stays unreachable until the lease has run out, a retry after that may run it again", e);
  }

  private void onFailure(CallPlan plan, IdempotencyStore store, String key, String owner, Duration lease,
      LeaseRenewer.Renewal renewal, Throwable t) {
    if (plan.isFinal(t)) {
      String state;
      try {
        state = FailureReplay.record(t);
      } catch (FailureReplay.NotRecreatable | RuntimeException e) {
        // never record what a replay would not give back as it was: a retry runs the method again instead
        LOG.log(Level.WARNING, "The final exception " + t.getClass().getName() + " of " + plan.description
            + " (key#" + Hashing.shortReference(key) + ") was not recorded, because a replay could not recreate it ("
            + e.getMessage() + "); the key was released and a retry runs the method again");
        release(plan, store, key, owner, t);
        return;
      }
      boolean completed;
      StoredOutcome outcome = StoredOutcome.failure(t.getClass().getName(), t.getMessage(), state);
      try {
        completed = store.complete(key, owner, outcome, ttl(plan));
      } catch (RuntimeException e) {
        storeFailedAfterRun(plan, key, e);
        recordLater(plan, store, key, owner, lease, renewal, outcome, true);
        return;
      }
      if (completed) {
        emit(Type.FAILURE_STORED, plan, key, t);
      } else {
        leaseLost(plan, store, key, "store its final failure");
      }
    } else {
      release(plan, store, key, owner, t);
    }
  }

  private void release(CallPlan plan, IdempotencyStore store, String key, String owner, Throwable cause) {
    boolean released;
    try {
      released = store.release(key, owner);
    } catch (RuntimeException e) {
      emit(Type.STORE_ERROR, plan, key, e);
      LOG.log(Level.WARNING, "Could not release the claim of " + plan.description
          + "; the key stays in progress until its lease expires", e);
      return;
    }
    if (released) {
      emit(Type.RELEASED_ON_FAILURE, plan, key, cause);
    } else {
      leaseLost(plan, store, key, "release");
    }
  }

  /** How the lease renewer's reports become events and log lines. */
  LeaseRenewer.Listener renewalListener() {
    return new LeaseRenewer.Listener() {
      @Override
      public void renewalFailed(CallPlan plan, String key, RuntimeException error) {
        emit(Type.STORE_ERROR, plan, key, error);
      }

      @Override
      public void leaseLost(CallPlan plan, IdempotencyStore store, String key, String action) {
        IdempotencyEngine.this.leaseLost(plan, store, key, action);
      }

      @Override
      public void runTimeExceeded(CallPlan plan, String key, Duration maxRunTime) {
        IdempotencyEngine.this.runTimeExceeded(plan, key, maxRunTime);
      }

      @Override
      public void recordedLate(CallPlan plan, String key, LeaseRenewer.LateRecording recording) {
        emit(recording.failure() ? Type.FAILURE_STORED : Type.EXECUTED, plan, key, null);
        LOG.log(Level.INFO, "Recorded the outcome of " + plan.description + " (key#" + Hashing.shortReference(key)
            + ") once the store answered again");
      }

      @Override
      public void recordingAbandoned(CallPlan plan, String key, Duration maxRunTime) {
        emit(Type.RUN_TIME_EXCEEDED, plan, key, null);
        LOG.log(Level.WARNING, "Gave up recording the outcome of " + plan.description + " (key#"
            + Hashing.shortReference(key) + "): the store did not take it within the call's maximum run time of "
            + maxRunTime + "; once its lease runs out a retry runs the method again");
      }
    };
  }

  private void runTimeExceeded(CallPlan plan, String key, Duration maxRunTime) {
    emit(Type.RUN_TIME_EXCEEDED, plan, key, null);
    LOG.log(Level.WARNING, "A call of " + plan.description + " (key#" + Hashing.shortReference(key) + ") has run"
        + " longer than its maximum run time of " + maxRunTime + ": its lease is no longer renewed, and once it"
        + " runs out another caller may take the key over");
  }

  /**
   * Reports a claim the store no longer holds, saying what the store shows now: another owner's claim or
   * outcome (the lease ran out and another caller took over), or no record at all (it expired, was
   * evicted, or the store lost it in a restart or failover).
   */
  private void leaseLost(CallPlan plan, IdempotencyStore store, String key, String action) {
    emit(Type.LEASE_LOST, plan, key, null);
    String now;
    try {
      Optional<IdempotencyRecord> found = store.find(key);
      now = found.isEmpty()
          ? "its record is gone from the store (expired and purged, evicted, or lost in a restart or failover of"
              + " the store), so a retry runs the method again"
          : found.get().state() == RecordState.COMPLETED
              ? "another caller, which took it over once its lease ran out, has recorded its own outcome, which"
                  + " was left untouched"
              : "its lease ran out and another caller took it over; the new owner's claim was left untouched";
    } catch (RuntimeException e) {
      now = "its lease ran out and another caller may have taken over, or its record is gone (the store could"
          + " not be asked which)";
    }
    LOG.log(Level.WARNING, "Lost the claim of " + plan.description + " (key#" + Hashing.shortReference(key)
        + ") before it could " + action + ": " + now);
  }

  private Object replay(CallPlan plan, StoredOutcome outcome, String key) throws Throwable {
    emit(Type.REPLAYED, plan, key, null);
    LAST.set(CallOutcome.REPLAYED);
    return replayed(plan, outcome);
  }

  private Object replayed(CallPlan plan, StoredOutcome outcome) throws Throwable {
    if (outcome.kind() == StoredOutcome.Kind.FAILURE) {
      Throwable failure = FailureReplay.recreate(plan, outcome);
      if (plan.shape == CallPlan.ResultShape.STAGE) {
        return CompletableFuture.failedFuture(failure);
      }
      throw failure;
    }
    // only a value that cannot change is kept by reference (see recorded): any other is decoded afresh
    Object value = outcome.kind() == StoredOutcome.Kind.NULL ? null
        : outcome.hasReference() ? outcome.reference()
        : config.codec().decode(outcome.json(), plan.resultType);
    if (plan.shape == CallPlan.ResultShape.STAGE) {
      return CompletableFuture.completedFuture(value);
    }
    if (plan.shape == CallPlan.ResultShape.OPTIONAL && value == null) {
      return Optional.empty();
    }
    return value;
  }

  private IdempotencyRecord awaitCompletion(
      CallPlan plan, IdempotencyStore store, String key, Waiting waiting, Duration lease) throws InterruptedException {
    SignalWake wake = null;
    while (true) {
      long now = time.nanoTime();
      long remaining = waiting.deadline - now;
      if (remaining <= 0) {
        emit(Type.IN_PROGRESS, plan, key, null);
        throw new IdempotencyInProgressException(
            "Waited for a call of " + plan.description + " with the same key (key#" + Hashing.shortReference(key)
                + ") but it is still in progress; the method did not run again", null, plan.name, reference(key));
      }
      CompletionStage<?> signal = store.changeSignal(key);
      if (signal != null) {
        // the store tells when the record changes, but not when the first caller's lease runs out with
        // nobody to release it: look again at least once a lease, so a dead owner is taken over here too
        if (wake == null || wake.signal != signal) {
          wake = new SignalWake(signal);
          signal.whenComplete(wake);
        }
        parkUntil(now + Math.min(remaining, lease.toNanos()), wake);
      } else {
        parkUntil(now + Math.min(waiting.pause, remaining), null);
        waiting.pause = Math.min(waiting.pause * 2, MAX_POLL_NANOS);
      }
      Optional<IdempotencyRecord> found;
      try {
        found = store.find(key);
      } catch (RuntimeException e) {
        emit(Type.STORE_ERROR, plan, key, e);
        throw new IdempotencyStoreException(
            "The idempotency store failed while waiting for a call of " + plan.description, e, plan.name,
            reference(key));
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

  private void checkFingerprint(CallPlan plan, IdempotencyRecord record, String fingerprint, String key) {
    if (plan.checkPayload && !record.fingerprint().isEmpty() && !record.fingerprint().equals(fingerprint)) {
      emit(Type.KEY_REUSED, plan, key, null);
      throw new IdempotencyKeyReusedException(
          "The key of " + plan.description + " (key#" + Hashing.shortReference(key)
              + ") was already used with different arguments; the method did not run", null, plan.name,
          reference(key));
    }
  }

  /** The stored key's short reference, as events and exceptions give it. */
  private static String reference(String key) {
    return Hashing.shortReference(key);
  }

  private Duration ttl(CallPlan plan) {
    return plan.ttl != null ? plan.ttl : config.defaultTtl();
  }

  private Duration maxRunTime(CallPlan plan) {
    return plan.maxRunTime != null ? plan.maxRunTime : ttl(plan);
  }

  private static void cancel(LeaseRenewer.Renewal renewal) {
    if (renewal != null) {
      renewal.cancel();
    }
  }

  private void emit(Type type, CallPlan plan, String key, Throwable error) {
    if (observer != null) {
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

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
