package io.idempotent.internal;

import io.idempotent.IdempotencyListener;
import io.idempotent.IdempotencyObserver;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.TimeSource;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.ResultCodec;
import java.time.Duration;
import java.util.function.Function;

/**
 * What the engine reads of its configuration, as {@code io.idempotent.runtime.IdempotencyConfig} gives it:
 * the engine depends on these values, never on the class that checks and holds them.
 *
 * @param stores the store of a name, the empty name meaning the default store; an unknown name is an
 *     {@link io.idempotent.IdempotencyConfigurationException}
 * @param listener may be null
 * @param observer may be null
 */
public record EngineSettings(
    Function<String, IdempotencyStore> stores,
    String defaultStoreName,
    Duration defaultTtl,
    Duration defaultLease,
    Duration defaultWaitTimeout,
    TimeSource time,
    IdempotencyListener listener,
    IdempotencyObserver observer,
    ResultCodec codec,
    boolean enabled,
    MissingKeyPolicy missingKeyPolicy,
    boolean leaseRenewal) {

  /** The store named {@code name}, or the default store for the empty name. */
  public IdempotencyStore store(String name) {
    return stores.apply(name);
  }
}
