package io.idempotent.internal;

import io.idempotent.CallOutcome;
import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyObserver;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.OnInProgress;
import io.idempotent.TimeSource;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state machine described in docs/DESIGN.md, Outcomes, and the one place where the algorithm lives:
 * claim, run, complete or release, replay, wait, skip, take over, fence. Knows nothing of AspectJ.
 * Thread-safe.
 */
public final class IdempotencyEngine {

  private static final ThreadLocal<CallOutcome> LAST = new ThreadLocal<>();

  private final EngineSettings settings;
  private final CallEvents events;
  private final TimeSource time;
  private final IdempotencyObserver observer;
  private final LeaseRenewer renewer;
  private final OutcomeRecorder recorder;
  private final String ownerPrefix;
  private final AtomicLong ownerCounter = new AtomicLong();
  /**
   * An owner token that no claim has written yet. A call takes it and gives it back only when every
   * claim it made found a live record (a replay), so a replay makes no token and each claim that may
   * have written one gets a token of its own.
   */
  private final ThreadLocal<String> unusedOwner = new ThreadLocal<>();

  public IdempotencyEngine(EngineSettings settings) {
    this.settings = settings;
    this.time = settings.time();
    this.observer = settings.observer();
    this.events = new CallEvents(settings.listener(), observer != null);
    this.renewer = new LeaseRenewer(renewalListener(), time);
    this.recorder = new OutcomeRecorder(settings, events, renewer);
    byte[] seed = new byte[9];
    new SecureRandom().nextBytes(seed);
    this.ownerPrefix = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(seed) + '.';
  }

  public EngineSettings settings() {
    return settings;
  }

  /**
   * How the last idempotent call on this thread ended (EXECUTED also when the method threw); null when
   * it was refused without running, or none ran on this thread yet.
   */
  public static CallOutcome lastOutcome() {
    return LAST.get();
  }

  /**
   * Leaves null for {@link #lastOutcome()}: for an entry point that refuses a call before it reaches the
   * engine (a key expression that throws, a bad annotation), so that no outcome of an earlier call is left
   * behind. A call that reaches the engine has its outcome set once, when it ends ({@link #end}).
   */
  public static void refusedBeforeTheEngine() {
    // set, not remove: the thread keeps its entry instead of making a new one per call
    LAST.set(null);
  }

  /** What a call returned (or replayed, or skipped with), and how it ended. */
  public record Result(Object value, CallOutcome outcome) {}

  /**
   * How a call that was answered ended: the value it returns, or the throwable it ends with (the method's
   * own, a replayed final failure, a failure to record after it ran), and its outcome. A call refused
   * without an answer throws instead, and has no outcome.
   */
  record Ending(Object value, Throwable thrown, CallOutcome outcome) {

    static Ending returned(Object value, CallOutcome outcome) {
      return new Ending(value, null, outcome);
    }

    static Ending threw(Throwable thrown, CallOutcome outcome) {
      return new Ending(null, thrown, outcome);
    }

    Object valueOrThrow() throws Throwable {
      if (thrown != null) {
        throw thrown;
      }
      return value;
    }
  }

  /**
   * Runs {@code invocation} at most once per (name, scope, key) and returns its value: {@link #call}
   * for callers that need only the value (the woven aspect).
   */
  public Object execute(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    return end(plan, key, scope, payload, invocation).valueOrThrow();
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
    Ending ending = end(plan, key, scope, payload, invocation);
    return new Result(ending.valueOrThrow(), ending.outcome());
  }

  /**
   * The boundary of a call: runs it and sets {@link #lastOutcome()} once, to how it ended, or to null
   * when it was refused without an answer.
   */
  private Ending end(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    Ending ending;
    try {
      ending = !settings.enabled() ? Ending.returned(invocation.proceed(), CallOutcome.UNPROTECTED)
          : observer == null ? decide(plan, key, scope, payload, invocation)
          : observed(plan, key, scope, payload, invocation);
    } catch (Throwable refused) {
      LAST.set(null);
      throw refused;
    }
    LAST.set(ending.outcome());
    return ending;
  }

  private Ending observed(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    CallObservation observation =
        CallObservation.start(observer, plan.storeName.isEmpty() ? settings.defaultStoreName() : plan.storeName, plan);
    Ending ending;
    try {
      ending = decide(plan, key, scope, payload, invocation);
    } catch (Throwable refused) {
      observation.thrown(refused, null);
      throw refused;
    }
    if (ending.thrown() != null) {
      observation.thrown(ending.thrown(), ending.outcome());
    } else {
      observation.returned(ending.value(), ending.outcome());
    }
    return ending;
  }

  /**
   * The algorithm: how the call ends when it is answered (run, replayed, skipped); a refusal without an
   * answer is thrown.
   */
  private Ending decide(CallPlan plan, String key, String scope, Object[] payload, Invocation invocation)
      throws Throwable {
    plan.checkResultType(settings.codec()); // a result no retry could read back is refused before it runs
    if (isBlank(key) || (plan.scoped && isBlank(scope))) {
      return onMissingKey(plan, key, scope, invocation);
    }
    IdempotencyStore store = settings.store(plan.storeName);
    String storedKey = StoredKeys.compose(plan.name, scope, key, KeyLimits.rulesOf(store));
    String fingerprint = plan.checkPayload ? Fingerprints.of(payload) : "";
    Duration lease = plan.lease != null ? plan.lease : settings.defaultLease();
    String owner = takeOwner();
    DuplicateWait waiting = null;
    while (true) {
      // a call of this key whose outcome is on its way to the store from here is still in progress, even
      // where the store let its lease run out meanwhile: no caller in this JVM takes it over
      CallClaim call = renewer.recording(store, storedKey) ? null
          : claim(plan, store, storedKey, fingerprint, owner, lease);
      ClaimResult claim = call != null ? call.result()
          : ClaimResult.existing(IdempotencyRecord.inProgress(storedKey, fingerprint, null));
      if (claim.claimed()) {
        return runClaimed(plan, store, storedKey, call, lease, invocation);
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
        Duration timeout = plan.waitTimeout != null ? plan.waitTimeout : settings.defaultWaitTimeout();
        waiting = new DuplicateWait(time, events, time.nanoTime() + timeout.toNanos()); // at most a day
      }
      IdempotencyRecord done = waiting.await(plan, store, storedKey, lease);
      if (done != null) {
        checkFingerprint(plan, done, fingerprint, storedKey);
        return replay(plan, done.outcome(), storedKey);
      }
      // the first call released the key or its lease ran out: claim again
    }
  }

  private Ending onMissingKey(CallPlan plan, String key, String scope, Invocation invocation) throws Throwable {
    missingKey(plan, key, scope);
    return Ending.returned(invocation.proceed(), CallOutcome.UNPROTECTED);
  }

  /**
   * A call whose key or scope is missing: returns when the policy runs it unprotected, and throws when it
   * refuses it.
   */
  void missingKey(CallPlan plan, String key, String scope) {
    emit(Type.KEY_MISSING, plan, null, null);
    if (settings.missingKeyPolicy() == MissingKeyPolicy.RUN_UNPROTECTED) {
      return;
    }
    String what = isBlank(key) ? "key" : "scope";
    String value = (isBlank(key) ? key : scope) == null ? "null" : "a blank string";
    throw new IdempotencyKeyException(
        "The " + what + " of " + plan.description + " evaluated to " + value + "; the method did not run",
        null, plan.name, null);
  }

  private Ending runClaimed(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      Invocation invocation) {
    if (claim.result().status() == ClaimResult.Status.TAKEN_OVER) {
      emit(Type.LEASE_TAKEN_OVER, plan, key, null);
    }
    return run(plan, store, key, claim, lease, invocation);
  }

  /** A live claim of the same key, and a policy that does not wait for it: THROW throws, SKIP skips. */
  Ending refuseInProgress(CallPlan plan, String key) {
    if (plan.onInProgress == OnInProgress.SKIP) {
      emit(Type.SKIPPED, plan, key, null);
      Object skipped = switch (plan.shape) {
        case OPTIONAL -> Optional.empty();
        case STAGE -> CompletableFuture.completedFuture(null);
        default -> null;
      };
      return Ending.returned(skipped, CallOutcome.SKIPPED);
    }
    emit(Type.IN_PROGRESS, plan, key, null);
    throw new IdempotencyInProgressException(
        "A call of " + plan.description + " with the same key is in progress (key#"
            + Hashing.shortReference(key) + "); the method did not run again", null, plan.name, reference(key));
  }

  private String takeOwner() {
    String owner = unusedOwner.get();
    if (owner == null) {
      return newOwner();
    }
    unusedOwner.set(null);
    return owner;
  }

  CallClaim claim(
      CallPlan plan, IdempotencyStore store, String key, String fingerprint, String owner, Duration lease) {
    return claim(plan, store, key, fingerprint, owner, lease, plan.effects);
  }

  /** A claim of a call whose effects are {@code effects}, whatever the plan declared. */
  CallClaim claim(CallPlan plan, IdempotencyStore store, String key, String fingerprint, String owner,
      Duration lease, Effects effects) {
    try {
      return CallClaims.claim(store, key, fingerprint, owner, lease, effects);
    } catch (IdempotencyConfigurationException e) {
      throw e; // the store refuses how the call is made (undeclared effects in a transaction), not failed
    } catch (RuntimeException e) {
      emit(Type.STORE_ERROR, plan, key, e);
      throw new IdempotencyStoreException(
          "The idempotency store failed to claim a key of " + plan.description + "; the method did not run", e,
          plan.name, reference(key));
    }
  }

  /** Runs the claimed call and records its outcome: the call ends {@code EXECUTED}, whatever it threw. */
  private Ending run(
      CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease, Invocation invocation) {
    LeaseRenewer.Renewal renewal = settings.leaseRenewal()
        ? renewer.register(plan, store, key, claim, lease, recorder.maxRunTime(plan))
        : null;
    Object result;
    RunningKeys running = RunningKeys.enter(store, key);
    try {
      result = invocation.proceed();
    } catch (Throwable t) {
      cancel(renewal);
      recorder.onFailure(plan, store, key, claim, lease, renewal, t);
      if (plan.shape == CallPlan.ResultShape.STAGE && plan.isFinal(t)) {
        // as every replay of this recorded failure will
        return Ending.returned(CompletableFuture.failedFuture(t), CallOutcome.EXECUTED);
      }
      return Ending.threw(t, CallOutcome.EXECUTED);
    } finally {
      running.exit();
    }
    try {
      return Ending.returned(recorded(plan, store, key, claim, lease, renewal, result), CallOutcome.EXECUTED);
    } catch (Throwable t) {
      return Ending.threw(t, CallOutcome.EXECUTED); // it ran; its outcome could not be recorded
    }
  }

  /** Records the outcome of a call that returned {@code result}; returns what the caller gets. */
  @SuppressWarnings("FutureReturnValueIgnored") // a stage returned is the caller's result, not dropped
  private Object recorded(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      LeaseRenewer.Renewal renewal, Object result) {
    if (plan.shape == CallPlan.ResultShape.STAGE) {
      if (result == null) {
        cancel(renewal);
        recorder.complete(plan, store, key, claim, lease, renewal, null, false);
        return CompletableFuture.completedFuture(null); // as every replay of a null outcome will
      }
      return completeWhenDone(plan, store, key, claim, lease, renewal, (CompletionStage<?>) result);
    }
    cancel(renewal);
    recorder.complete(plan, store, key, claim, lease, renewal, result, false);
    return result;
  }

  private CompletableFuture<Object> completeWhenDone(CallPlan plan, IdempotencyStore store, String key,
      CallClaim claim, Duration lease, LeaseRenewer.Renewal renewal, CompletionStage<?> stage) {
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
          recorder.complete(plan, store, key, claim, lease, renewal, value, detached);
          out.complete(value);
        } catch (Throwable t) {
          out.completeExceptionally(t);
        }
      } else {
        recorder.onFailure(plan, store, key, claim, lease, renewal, unwrap(error));
        out.completeExceptionally(error);
      }
    });
    returned.set(true);
    return out;
  }

  /**
   * Runs a batch of items as one call (docs/MESSAGING.md, Batches): {@code keys.get(i)} and {@code
   * payloads.get(i)} belong to item {@code i}, which {@code body} runs by its index. Every distinct key is
   * claimed at once and every outcome recorded at once; the endings come back in the items' order.
   */
  public List<BatchRun.Item> batch(CallPlan plan, List<String> keys, List<Object[]> payloads, BatchRun.Body body) {
    if (!settings.enabled()) {
      List<BatchRun.Item> items = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        try {
          items.add(new BatchRun.Item(body.run(i), null, CallOutcome.UNPROTECTED));
        } catch (Throwable t) {
          items.add(new BatchRun.Item(null, t, CallOutcome.UNPROTECTED));
        }
      }
      return items;
    }
    plan.checkResultType(settings.codec());
    return new BatchRun(settings, events, recorder, this::replayed, plan, takeOwner()).run(keys, payloads, body);
  }

  /** An owner token no claim has written. */
  String newOwner() {
    // one concatenation writes the counter's digits straight into the token: one array, one string
    return ownerPrefix + ownerCounter.incrementAndGet();
  }

  /** A call whose method returns its result later, as a stage: {@link AsyncCall}. */
  @FunctionalInterface
  public interface AsyncInvocation {
    /** Starts the method; its stage completes with the result (null: a null result). */
    CompletionStage<?> start() throws Throwable;
  }

  CallEvents events() {
    return events;
  }

  OutcomeRecorder recorder() {
    return recorder;
  }

  LeaseRenewer renewer() {
    return renewer;
  }

  /** How the lease renewer's reports become events and log lines. */
  LeaseRenewer.Listener renewalListener() {
    return OutcomeRecorder.renewalReports(events);
  }

  Ending replay(CallPlan plan, StoredOutcome outcome, String key) {
    emit(Type.REPLAYED, plan, key, null);
    try {
      return Ending.returned(replayed(plan, outcome), CallOutcome.REPLAYED);
    } catch (Throwable t) {
      return Ending.threw(t, CallOutcome.REPLAYED); // a recorded final failure, recreated
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a stage returned is the caller's result, not dropped
  Object replayed(CallPlan plan, StoredOutcome outcome) throws Throwable {
    if (outcome.kind() == StoredOutcome.Kind.FAILURE) {
      Throwable failure = FailureReplay.recreate(plan.description, plan.finalExceptions, plan.classLoader, outcome);
      if (plan.shape == CallPlan.ResultShape.STAGE) {
        return CompletableFuture.failedFuture(failure);
      }
      throw failure;
    }
    // only a value that cannot change is kept by reference (see recorded): any other is decoded afresh
    Object value = outcome.kind() == StoredOutcome.Kind.NULL ? null
        : outcome.hasReference() ? outcome.reference()
        : settings.codec().decode(outcome.json(), plan.resultType);
    if (plan.shape == CallPlan.ResultShape.STAGE) {
      return CompletableFuture.completedFuture(value);
    }
    if (plan.shape == CallPlan.ResultShape.OPTIONAL && value == null) {
      return Optional.empty();
    }
    return value;
  }

  void checkFingerprint(CallPlan plan, IdempotencyRecord record, String fingerprint, String key) {
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

  static void cancel(LeaseRenewer.Renewal renewal) {
    if (renewal != null) {
      renewal.cancel();
    }
  }

  void emit(Type type, CallPlan plan, String key, Throwable error) {
    events.emit(type, plan, key, error);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
