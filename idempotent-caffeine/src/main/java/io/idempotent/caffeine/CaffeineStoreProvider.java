package io.idempotent.caffeine;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;

/**
 * Provides the in-memory store as {@code caffeine}. Setting: {@code idempotent.caffeine.maximum-completed}
 * (default {@value CaffeineIdempotencyStore#DEFAULT_MAXIMUM_COMPLETED}).
 */
public final class CaffeineStoreProvider implements IdempotencyStoreProvider {

  @Override
  public String name() {
    return "caffeine";
  }

  /** Below durable stores: chosen by default only when no durable store is on the class path. */
  @Override
  public int priority() {
    return 10;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    return CaffeineIdempotencyStore.builder()
        .maximumCompleted(settings.getLong("maximum-completed", CaffeineIdempotencyStore.DEFAULT_MAXIMUM_COMPLETED))
        .build();
  }
}
