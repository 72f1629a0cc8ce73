package io.idempotent.layered;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.internal.StoreProviders;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;

/**
 * Provides {@code layered}: settings {@code idempotent.layered.near} (default {@code caffeine}) and
 * {@code idempotent.layered.far} (default {@code jdbi}) name the two stores, each configured by its own
 * {@code idempotent.<store>.*} properties. Chosen only when named ({@code idempotent.store=layered}).
 */
public final class LayeredStoreProvider implements IdempotencyStoreProvider {

  @Override
  public String name() {
    return "layered";
  }

  @Override
  public int priority() {
    return -1;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    String nearName = settings.get("near", "caffeine");
    String farName = settings.get("far", "jdbi");
    if (nearName.equalsIgnoreCase(name()) || farName.equalsIgnoreCase(name())) {
      throw new IdempotencyConfigurationException("A layered store cannot contain another layered store");
    }
    ClassLoader loader = LayeredStoreProvider.class.getClassLoader();
    IdempotencyStore near = StoreProviders.provider(nearName, loader, "idempotent.layered.near")
        .create(settings.forStore(nearName));
    IdempotencyStore far = StoreProviders.provider(farName, loader, "idempotent.layered.far")
        .create(settings.forStore(farName));
    return new LayeredIdempotencyStore(near, far);
  }
}
