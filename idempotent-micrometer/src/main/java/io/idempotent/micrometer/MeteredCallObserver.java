package io.idempotent.micrometer;

import io.idempotent.IdempotencyObserver;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Times each call in {@link MicrometerIdempotency#CALLS} and, with an observation registry, makes it an
 * observation open on the calling thread. The timers of a (store, name) pair are looked up once and kept.
 * Thread-safe.
 */
final class MeteredCallObserver implements IdempotencyObserver {

  private static final Outcome[] OUTCOMES = Outcome.values();

  private final @Nullable MeterRegistry meters;
  private final Clock clock;
  private final @Nullable ObservationRegistry observations;
  private final @Nullable IdempotentCallObservationConvention convention;
  /** The timers of each store's calls, by call name. */
  private final ConcurrentMap<String, ConcurrentMap<String, CallTimers>> timers = new ConcurrentHashMap<>();

  /**
   * @param meters where the timers go, or null for none
   * @param observations the registry of the calls' observations, or null for none
   * @param convention the observations' convention, or null for the default
   */
  MeteredCallObserver(
      @Nullable MeterRegistry meters, @Nullable ObservationRegistry observations,
      @Nullable IdempotentCallObservationConvention convention) {
    this.meters = meters;
    this.clock = meters == null ? Clock.SYSTEM : meters.config().clock();
    this.observations = observations;
    this.convention = convention;
  }

  @Override
  public @Nullable ObservedCall start(String name, String store) {
    MeterRegistry registry = meters;
    CallTimers callTimers = registry == null ? null : timers(registry, name, store);
    if (observations == null || observations.isNoop()) {
      return callTimers == null ? null : new TimedCall(callTimers, clock.monotonicTime());
    }
    IdempotentCallContext context = new IdempotentCallContext(name, store);
    Observation observation = Observation.createNotStarted(
        convention, DefaultIdempotentCallObservationConvention.INSTANCE, () -> context, observations).start();
    return new ObservingCall(callTimers, callTimers == null ? 0 : clock.monotonicTime(), context, observation,
        observation.openScope());
  }

  private CallTimers timers(MeterRegistry registry, String name, String store) {
    ConcurrentMap<String, CallTimers> ofStore = timers.get(store);
    if (ofStore == null) {
      ofStore = timers.computeIfAbsent(store, s -> new ConcurrentHashMap<>());
    }
    CallTimers found = ofStore.get(name);
    return found != null ? found : ofStore.computeIfAbsent(name, n -> new CallTimers(registry, n, store));
  }

  @Override
  public String toString() {
    return "MeteredCallObserver[" + (meters != null ? MeterNames.CALLS : "")
        + (observations != null ? " " + DefaultIdempotentCallObservationConvention.NAME : "") + "]";
  }

  /** The timers of one call name on one store, one per outcome, each registered when first needed. */
  private static final class CallTimers {
    private final MeterRegistry meters;
    private final String name;
    private final String store;
    private final AtomicReferenceArray<Timer> byOutcome = new AtomicReferenceArray<>(OUTCOMES.length);

    CallTimers(MeterRegistry meters, String name, String store) {
      this.meters = meters;
      this.name = name;
      this.store = store;
    }

    @SuppressWarnings("EnumOrdinal") // the timers by outcome in an array: no hashing on every call
    void record(Outcome outcome, long nanos) {
      Timer timer = byOutcome.get(outcome.ordinal());
      if (timer == null) {
        timer = Timer.builder(MeterNames.CALLS)
            .description("Idempotent calls, by how they ended")
            .tag("name", name)
            .tag("store", store)
            .tag("outcome", DefaultIdempotentCallObservationConvention.tagValue(outcome))
            .register(meters); // the registry gives every racing thread the same timer
        byOutcome.set(outcome.ordinal(), timer);
      }
      timer.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** A call timed only. */
  private final class TimedCall implements ObservedCall {
    private final CallTimers callTimers;
    private final long start;

    TimedCall(CallTimers callTimers, long start) {
      this.callTimers = callTimers;
      this.start = start;
    }

    @Override
    public void end(Outcome outcome, Throwable error) {
      callTimers.record(outcome, clock.monotonicTime() - start);
    }
  }

  /** A call observed, and timed when there is a meter registry. */
  private final class ObservingCall implements ObservedCall {
    private final @Nullable CallTimers callTimers;
    private final long start;
    private final IdempotentCallContext context;
    private final Observation observation;
    /** Open on the calling thread until the call ends there or returns an incomplete stage. */
    private Observation.@Nullable Scope scope;

    ObservingCall(@Nullable CallTimers callTimers, long start, IdempotentCallContext context, Observation observation,
        Observation.Scope scope) {
      this.callTimers = callTimers;
      this.start = start;
      this.context = context;
      this.observation = observation;
      this.scope = scope;
    }

    @Override
    public void detached() {
      closeScope();
    }

    @Override
    public void end(Outcome outcome, Throwable error) {
      if (callTimers != null) {
        callTimers.record(outcome, clock.monotonicTime() - start);
      }
      closeScope(); // on the calling thread: end was not preceded by detached
      context.outcome(outcome);
      if (error != null) {
        observation.error(error);
      }
      observation.stop();
    }

    private void closeScope() {
      Observation.Scope open = scope;
      if (open != null) {
        scope = null;
        open.close();
      }
    }
  }
}
