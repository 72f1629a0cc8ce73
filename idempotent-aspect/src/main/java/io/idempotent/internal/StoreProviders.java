package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.IdempotencyStoreProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** The store providers on the class path, which a configuration from properties chooses among. */
public final class StoreProviders {

  private StoreProviders() {}

  /** The store providers visible to {@code loader}, highest priority first. */
  public static List<IdempotencyStoreProvider> providers(ClassLoader loader) {
    List<IdempotencyStoreProvider> providers = new ArrayList<>();
    ServiceLoader.load(IdempotencyStoreProvider.class, loader).forEach(providers::add);
    providers.sort(Comparator.comparingInt(IdempotencyStoreProvider::priority).reversed());
    return providers;
  }

  /** The provider named {@code name}, or a configuration error listing the available ones. */
  public static IdempotencyStoreProvider provider(String name, ClassLoader loader, String property) {
    List<IdempotencyStoreProvider> providers = providers(loader);
    return providers.stream().filter(p -> p.name().equalsIgnoreCase(name.trim())).findFirst()
        .orElseThrow(() -> new IdempotencyConfigurationException(
            "Property " + property + " names '" + name.trim() + "', but no such store is on the class path;"
                + " available: " + names(providers)));
  }

  private static String names(List<IdempotencyStoreProvider> providers) {
    return providers.isEmpty() ? "none" : providers.stream().map(IdempotencyStoreProvider::name)
        .collect(Collectors.joining(", "));
  }
}
