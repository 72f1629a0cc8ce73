package io.idempotent.runtime;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyListener;
import io.idempotent.IdempotencyObserver;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.TimeSource;
import io.idempotent.internal.DurationLimits;
import io.idempotent.internal.EngineSettings;
import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.ResultCodec;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration: the stores, defaults for TTL, lease and wait timeout, the time source, the
 * listener and the result codec. Thread-safe. Build with {@link #builder()}; start from the stores on
 * the class path with {@link Idempotency#fromEnvironment()}.
 *
 * <pre>{@code
 * Idempotency.install(IdempotencyConfig.builder()
 *     .store(new CaffeineIdempotencyStore())
 *     .defaultTtl(Duration.ofHours(1))
 *     .build());
 * }</pre>
 */
public final class IdempotencyConfig {

  /** Name under which {@link Builder#store(IdempotencyStore)} registers its store. */
  public static final String DEFAULT_STORE = "default";

  private final Map<String, IdempotencyStore> stores;
  private final String defaultStoreName;
  private final Duration defaultTtl;
  private final Duration defaultLease;
  private final Duration defaultWaitTimeout;
  private final TimeSource time;
  private final @Nullable IdempotencyListener listener;
  private final @Nullable IdempotencyObserver observer;
  private final ResultCodec codec;
  private final boolean enabled;
  private final MissingKeyPolicy missingKeyPolicy;
  private final boolean leaseRenewal;

  private IdempotencyConfig(Builder b) {
    this.stores = Map.copyOf(b.stores);
    this.defaultStoreName = b.defaultStoreName;
    this.defaultTtl = b.defaultTtl;
    this.defaultLease = b.defaultLease;
    this.defaultWaitTimeout = b.defaultWaitTimeout;
    this.time = b.time;
    this.listener = b.listener;
    this.observer = b.observer;
    this.codec = b.codec != null ? b.codec : JacksonResultCodec.shared();
    this.enabled = b.enabled;
    this.missingKeyPolicy = b.missingKeyPolicy;
    this.leaseRenewal = b.leaseRenewal;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to derive a changed copy. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.stores.putAll(stores);
    b.defaultStoreName = defaultStoreName;
    b.defaultTtl = defaultTtl;
    b.defaultLease = defaultLease;
    b.defaultWaitTimeout = defaultWaitTimeout;
    b.time = time;
    b.listener = listener;
    b.observer = observer;
    b.codec = codec;
    b.enabled = enabled;
    b.missingKeyPolicy = missingKeyPolicy;
    b.leaseRenewal = leaseRenewal;
    return b;
  }

  /** The store registered under {@code name}, or the default store when {@code name} is empty. */
  public IdempotencyStore store(String name) {
    String n = name == null || name.isEmpty() ? defaultStoreName : name;
    IdempotencyStore s = stores.get(n);
    if (s == null && !enabled && stores.isEmpty()) {
      throw new IdempotencyConfigurationException(
          "Idempotency is switched off (idempotent.enabled=false) and no store is configured, so there is no"
              + " store '" + n + "' to keep one-time tokens or records in; switch it on, or install a"
              + " configuration that registers a store");
    }
    if (s == null) {
      throw new IdempotencyConfigurationException(
          "No idempotency store named '" + n + "'; configured stores: " + stores.keySet());
    }
    return s;
  }

  /** The values the engine runs on. */
  EngineSettings engineSettings() {
    return new EngineSettings(this::store, defaultStoreName, defaultTtl, defaultLease, defaultWaitTimeout, time,
        listener, observer, codec, enabled, missingKeyPolicy, leaseRenewal);
  }

  public Map<String, IdempotencyStore> stores() {
    return stores;
  }

  public String defaultStoreName() {
    return defaultStoreName;
  }

  public Duration defaultTtl() {
    return defaultTtl;
  }

  public Duration defaultLease() {
    return defaultLease;
  }

  public Duration defaultWaitTimeout() {
    return defaultWaitTimeout;
  }

  /** Where the engine takes its time from (see {@link Builder#time}). */
  public TimeSource time() {
    return time;
  }

  /** The wall clock: {@code time().clock()}. */
  public Clock clock() {
    return time.clock();
  }

  /** The listener, or null when none is set (warnings are still logged). */
  public @Nullable IdempotencyListener listener() {
    return listener;
  }

  /** The observer of every call's start and end, or null when none is set. */
  public @Nullable IdempotencyObserver observer() {
    return observer;
  }

  public ResultCodec codec() {
    return codec;
  }

  /** False when idempotency is switched off: methods run directly and no store is touched. */
  public boolean enabled() {
    return enabled;
  }

  public MissingKeyPolicy missingKeyPolicy() {
    return missingKeyPolicy;
  }

  /** Whether leases of running calls are renewed automatically (true unless switched off, e.g. in a fault test). */
  public boolean leaseRenewal() {
    return leaseRenewal;
  }

  /** Builds an {@link IdempotencyConfig}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, IdempotencyStore> stores = new LinkedHashMap<>();
    private String defaultStoreName = DEFAULT_STORE;
    private Duration defaultTtl = Duration.ofHours(24);
    private Duration defaultLease = Duration.ofSeconds(30);
    private Duration defaultWaitTimeout = Duration.ofSeconds(10);
    private TimeSource time = TimeSource.system();
    private @Nullable IdempotencyListener listener;
    private @Nullable IdempotencyObserver observer;
    private @Nullable ResultCodec codec;
    private boolean enabled = true;
    private MissingKeyPolicy missingKeyPolicy = MissingKeyPolicy.REJECT;
    private boolean leaseRenewal = true;

    private Builder() {}

    /** Registers the default store. */
    public Builder store(IdempotencyStore store) {
      return store(DEFAULT_STORE, store);
    }

    /** Registers a named store, chosen by {@code @Idempotent(store = name)}. */
    public Builder store(String name, IdempotencyStore store) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(store, "store");
      stores.put(name, store);
      return this;
    }

    /** Which registered store serves annotations that name none. */
    public Builder defaultStore(String name) {
      this.defaultStoreName = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder defaultTtl(Duration ttl) {
      this.defaultTtl = DurationLimits.ttl(Objects.requireNonNull(ttl, "ttl"), "defaultTtl");
      return this;
    }

    public Builder defaultLease(Duration lease) {
      this.defaultLease = DurationLimits.lease(Objects.requireNonNull(lease, "lease"), "defaultLease");
      return this;
    }

    public Builder defaultWaitTimeout(Duration timeout) {
      this.defaultWaitTimeout =
          DurationLimits.waitTimeout(Objects.requireNonNull(timeout, "timeout"), "defaultWaitTimeout");
      return this;
    }

    /**
     * Where the engine takes its time from: {@code WAIT} deadlines, the lease renewal schedule and
     * maximum run times are measured on its {@link TimeSource#nanoTime()}, and the threads waiting for
     * them are parked on it. Default {@link TimeSource#system()}. Stores keep their own time; a
     * {@link io.idempotent.layered.LayeredIdempotencyStore} takes a time source in its constructor, which
     * should be this one (see docs/DESIGN.md, Leases, waiting and time).
     */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * The wall clock, which {@link IdempotencyConfig#clock()} returns: the time source set so far with
     * {@code clock} as its {@link TimeSource#clock()}. The engine measures no duration on a wall clock —
     * {@code WAIT} deadlines included — so this changes no behaviour of the engine; a later
     * {@link #time} replaces it.
     */
    public Builder clock(Clock clock) {
      this.time = new WallClockTimeSource(time, Objects.requireNonNull(clock, "clock"));
      return this;
    }

    public Builder listener(IdempotencyListener listener) {
      this.listener = listener;
      return this;
    }

    /**
     * Watches every call from its start to its end (for timers and traces); null, the default, for none.
     * A call with no observer pays nothing for the hook.
     */
    public Builder observer(IdempotencyObserver observer) {
      this.observer = observer;
      return this;
    }

    public Builder codec(ResultCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /** Switches idempotency off (for tests): annotated methods run directly. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    public Builder missingKeyPolicy(MissingKeyPolicy policy) {
      this.missingKeyPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Whether to renew leases while methods run. Default true. */
    public Builder leaseRenewal(boolean renew) {
      this.leaseRenewal = renew;
      return this;
    }

    public IdempotencyConfig build() {
      if (enabled && !stores.containsKey(defaultStoreName)) {
        throw new IdempotencyConfigurationException(
            "The default store '" + defaultStoreName + "' is not registered; registered stores: "
                + stores.keySet());
      }
      return new IdempotencyConfig(this);
    }
  }
}
