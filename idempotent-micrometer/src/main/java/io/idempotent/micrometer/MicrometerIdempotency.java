package io.idempotent.micrometer;

import io.idempotent.IdempotencyListener;
import io.idempotent.IdempotencyObserver;
import io.idempotent.IdempotencyObserver.Outcome;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.InMemoryStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Meters and observations for idempotent calls: {@link #instrument} turns a configuration into one whose
 * every call and store operation is measured.
 *
 * <pre>{@code
 * Idempotency.install(MicrometerIdempotency.instrument(
 *     IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build(),
 *     meterRegistry, observationRegistry));
 * }</pre>
 *
 * <p>Meters, each tagged with names from the configuration and the annotations only, never with a key or
 * an argument, so their number does not grow with the keys:
 *
 * <ul>
 *   <li>{@value #CALLS}, a timer of every call that reaches the engine, tagged {@code name} (the call's
 *       namespace), {@code store} (the store's registered name) and {@code outcome} ({@code executed},
 *       {@code replayed}, {@code waited}, {@code skipped}, {@code in_progress}, {@code key_reused}, {@code
 *       key_missing}, {@code failed}, {@code store_error}: see {@link Outcome});
 *   <li>{@value #STORE_OPERATIONS}, a timer of the store's primitives, tagged {@code store}, {@code
 *       operation} ({@code claim}, {@code complete}, {@code complete_detached}, {@code release}, {@code
 *       renew}, {@code find}, {@code purge_expired}) and {@code outcome} ({@code success}, or {@code error}
 *       when the store threw); by default only for stores that leave the process, not the in-memory
 *       ones ({@link Builder#storeOperations});
 *   <li>{@value #LEASE_TAKEOVERS}, a counter of expired claims taken over from another owner, and {@value
 *       #LEASES_LOST}, a counter of claims lost before their owner could complete, renew or release them,
 *       both tagged {@code name}.
 * </ul>
 *
 * <p>With an {@link ObservationRegistry}, each call is also an {@link Observation} ({@value
 * DefaultIdempotentCallObservationConvention#NAME}), open on the calling thread while the method runs, so
 * that what the method observes (an HTTP client, a JDBC call) nests inside it, and traces reach a tracer
 * such as OpenTelemetry through Micrometer's tracing bridge. An observation registry that also makes
 * meters of observations (a {@code DefaultMeterObservationHandler}) then adds a timer named {@value
 * DefaultIdempotentCallObservationConvention#NAME} beside {@value #CALLS}.
 *
 * <p>A configuration with no registry costs nothing: the engine does the observer's work only when one is
 * configured. Thread-safe.
 */
public final class MicrometerIdempotency {

  /** Timer of idempotent calls by {@code name}, {@code store} and {@code outcome}. */
  public static final String CALLS = MeterNames.CALLS;
  /** Timer of store operations by {@code store}, {@code operation} and {@code outcome}. */
  public static final String STORE_OPERATIONS = MeterNames.STORE_OPERATIONS;
  /** Counter of expired claims taken over, by {@code name}. */
  public static final String LEASE_TAKEOVERS = MeterNames.LEASE_TAKEOVERS;
  /** Counter of claims lost before their owner could complete, renew or release them, by {@code name}. */
  public static final String LEASES_LOST = MeterNames.LEASES_LOST;

  private final @Nullable MeterRegistry meters;
  private final @Nullable ObservationRegistry observations;
  private final @Nullable IdempotentCallObservationConvention convention;
  /** Whether to time the operations of every store or none; null: of the stores not {@link InMemoryStore}. */
  private final @Nullable Boolean storeOperations;

  private MicrometerIdempotency(Builder b) {
    this.meters = b.meters;
    this.storeOperations = b.storeOperations;
    this.observations = b.observations;
    this.convention = b.convention;
  }

  /** {@code config} with its calls and store operations measured in {@code meters}. */
  public static IdempotencyConfig instrument(IdempotencyConfig config, MeterRegistry meters) {
    return builder().meterRegistry(meters).build().instrument(config);
  }

  /**
   * {@code config} with its calls and store operations measured in {@code meters}, and each call an
   * observation of {@code observations}.
   */
  public static IdempotencyConfig instrument(
      IdempotencyConfig config, MeterRegistry meters, ObservationRegistry observations) {
    return builder().meterRegistry(meters).observationRegistry(observations).build().instrument(config);
  }

  /**
   * For the less common set-ups: observations without meters, a convention of one's own, no timers of
   * store operations.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A copy of {@code config} whose stores are wrapped to time their operations (those {@link
   * Builder#storeOperations} picks), with an observer of every call and, before its own listener (if any),
   * one that counts lease take-overs and losses. The stores' registered names stay the same, and closing a
   * wrapped store closes the store it wraps.
   *
   * @throws IllegalArgumentException if {@code config} already has an observer (for instance, it was
   *     instrumented before)
   */
  public IdempotencyConfig instrument(IdempotencyConfig config) {
    Objects.requireNonNull(config, "config");
    if (config.observer() != null) {
      throw new IllegalArgumentException("This idempotency configuration already has an observer ("
          + config.observer() + "); instrument a configuration only once");
    }
    IdempotencyConfig.Builder b = config.toBuilder();
    if (meters != null) {
      for (Map.Entry<String, IdempotencyStore> store : config.stores().entrySet()) {
        if (storeOperations != null ? storeOperations : !(store.getValue() instanceof InMemoryStore)) {
          b.store(store.getKey(), new TimedIdempotencyStore(store.getValue(), store.getKey(), meters));
        }
      }
      IdempotencyListener leases = new LeaseCounters(meters);
      IdempotencyListener own = config.listener();
      b.listener(own == null ? leases : leases.andThen(own));
    }
    IdempotencyObserver observer = new MeteredCallObserver(meters, observations, convention);
    return b.observer(observer).build();
  }

  /** Builds a {@link MicrometerIdempotency}. Not thread-safe. */
  public static final class Builder {
    private @Nullable MeterRegistry meters;
    private @Nullable ObservationRegistry observations;
    private @Nullable IdempotentCallObservationConvention convention;
    private @Nullable Boolean storeOperations;

    private Builder() {}

    /** Where the meters go; none when not set. */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = Objects.requireNonNull(meters, "meters");
      return this;
    }

    /** Makes each call an observation of {@code observations}; none when not set. */
    public Builder observationRegistry(ObservationRegistry observations) {
      this.observations = Objects.requireNonNull(observations, "observations");
      return this;
    }

    /** Names the observations and their key values instead of {@link DefaultIdempotentCallObservationConvention}. */
    public Builder observationConvention(IdempotentCallObservationConvention convention) {
      this.convention = Objects.requireNonNull(convention, "convention");
      return this;
    }

    /**
     * Whether to time the operations of every store ({@value #STORE_OPERATIONS}), or of none. When not set,
     * the operations of the stores that leave the process (SQL, Redis, layered) are timed and those of the
     * {@linkplain InMemoryStore in-memory} stores are not: timing one takes two clock
     * readings and a timer update, about as long as the in-memory store's whole operation, and the call
     * timer already includes it.
     */
    public Builder storeOperations(boolean time) {
      this.storeOperations = time;
      return this;
    }

    /**
     * The instrumentation, to apply with {@link MicrometerIdempotency#instrument(IdempotencyConfig)}.
     *
     * @throws IllegalStateException when neither a meter registry nor an observation registry is set
     */
    public MicrometerIdempotency build() {
      if (meters == null && observations == null) {
        throw new IllegalStateException("Set a meter registry, an observation registry or both");
      }
      return new MicrometerIdempotency(this);
    }
  }
}
