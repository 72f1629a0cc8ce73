package io.idempotent.runtime;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.internal.DurationLimits;
import io.idempotent.internal.StoreProviders;
import io.idempotent.internal.config.ConfigText;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Builds a configuration from properties and the store providers on the class path. Properties are
 * read from, in order of precedence: system properties, environment variables ({@code
 * IDEMPOTENT_STORE} for {@code idempotent.store}) and {@code idempotent.properties} on the class
 * path. Names are compared with {@code -} and {@code _} taken as {@code .}, case-insensitively.
 */
final class EnvironmentConfiguration {

  private static final String PREFIX = "idempotent.";

  private EnvironmentConfiguration() {}

  static IdempotencyConfig load() {
    return load(readProperties(), EnvironmentConfiguration.class.getClassLoader());
  }

  /** Builds from the given properties (normalized or not) and providers visible to {@code loader}. */
  static IdempotencyConfig load(Map<String, String> rawProperties, ClassLoader loader) {
    Map<String, String> props = normalize(rawProperties);
    IdempotencyConfig.Builder b = IdempotencyConfig.builder();
    boolean enabled = enabled(props.get("idempotent.enabled"));
    b.enabled(enabled);
    duration(props, "idempotent.ttl").ifPresent(b::defaultTtl);
    duration(props, "idempotent.lease").ifPresent(b::defaultLease);
    duration(props, "idempotent.wait.timeout").ifPresent(b::defaultWaitTimeout);
    String missing = props.get("idempotent.missing.key");
    if (missing != null) {
      try {
        b.missingKeyPolicy(MissingKeyPolicy.valueOf(missing.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
      } catch (IllegalArgumentException e) {
        throw new IdempotencyConfigurationException(
            "Property idempotent.missing-key is '" + missing + "'; expected reject or run-unprotected");
      }
    }
    if (!enabled) {
      return b.build();
    }
    List<IdempotencyStoreProvider> providers = StoreProviders.providers(loader);
    String wanted = props.get("idempotent.store");
    IdempotencyStoreProvider chosen;
    if (wanted != null && !wanted.isBlank()) {
      chosen = StoreProviders.provider(wanted, loader, "idempotent.store");
    } else if (providers.isEmpty() || providers.get(0).priority() < 0) {
      throw new IdempotencyConfigurationException(
          "No idempotency store is on the class path: add idempotent-jdbi or idempotent-caffeine, or install a"
              + " configuration with Idempotency.install(...)");
    } else {
      chosen = providers.get(0);
    }
    String name = chosen.name().toLowerCase(Locale.ROOT);
    String storePrefix = PREFIX + name + ".";
    Map<String, String> settings = new HashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(storePrefix)) {
        settings.put(k.substring(storePrefix.length()), v);
      }
    });
    b.store(name, chosen.create(new StoreSettings(name, settings, props)));
    b.defaultStore(name);
    return b.build();
  }

  private static boolean enabled(@Nullable String value) {
    Boolean enabled = ConfigText.bool(value, "Property idempotent.enabled");
    return enabled == null || enabled;
  }

  private static java.util.Optional<Duration> duration(Map<String, String> props, String key) {
    String what = "Property " + key;
    Duration d = ConfigText.duration(props.get(key), what);
    if (d == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(switch (key) {
      case "idempotent.lease" -> DurationLimits.lease(d, what);
      case "idempotent.ttl" -> DurationLimits.ttl(d, what);
      default -> DurationLimits.waitTimeout(d, what);
    });
  }

  static Map<String, String> readProperties() {
    Map<String, String> out = new HashMap<>();
    try (InputStream in = Thread.currentThread().getContextClassLoader() != null
        ? Thread.currentThread().getContextClassLoader().getResourceAsStream("idempotent.properties")
        : null) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        p.stringPropertyNames().forEach(k -> out.put(normalizeKey(k), p.getProperty(k)));
      }
    } catch (IOException e) {
      throw new IdempotencyConfigurationException("Cannot read idempotent.properties", e);
    }
    System.getenv().forEach((k, v) -> {
      String n = normalizeKey(k);
      if (n.startsWith(PREFIX)) {
        out.put(n, v);
      }
    });
    System.getProperties().stringPropertyNames().forEach(k -> {
      String n = normalizeKey(k);
      if (n.startsWith(PREFIX)) {
        out.put(n, System.getProperty(k));
      }
    });
    return out;
  }

  private static Map<String, String> normalize(Map<String, String> raw) {
    Map<String, String> out = new HashMap<>();
    raw.forEach((k, v) -> out.put(normalizeKey(k), v));
    return out;
  }

  static String normalizeKey(String k) {
    return k.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
  }
}
