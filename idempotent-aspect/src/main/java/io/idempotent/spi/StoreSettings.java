package io.idempotent.spi;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.internal.config.ConfigText;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The settings of one store, read from properties under {@code idempotent.<store>.}. Immutable. */
public final class StoreSettings {

  private final String storeName;
  private final Map<String, String> values;
  private final Map<String, String> allProperties;

  public StoreSettings(String storeName, Map<String, String> values) {
    this(storeName, values, Map.of());
  }

  /**
   * @param values this store's settings, without the {@code idempotent.<store>.} prefix
   * @param allProperties every {@code idempotent.*} property, so a composite store can read its parts'
   */
  public StoreSettings(String storeName, Map<String, String> values, Map<String, String> allProperties) {
    this.allProperties = Map.copyOf(allProperties);
    this.storeName = storeName;
    Map<String, String> normalized = new java.util.HashMap<>();
    values.forEach((k, v) -> normalized.put(normalize(k), v));
    this.values = Map.copyOf(normalized);
  }

  /** Keys compare case-insensitively with {@code -} and {@code _} taken as {@code .}. */
  private static String normalize(String key) {
    return key.toLowerCase(java.util.Locale.ROOT).replace('_', '.').replace('-', '.');
  }

  /** The settings of another store from the same properties ({@code idempotent.<name>.*}). */
  public StoreSettings forStore(String name) {
    String prefix = "idempotent." + normalize(name) + ".";
    Map<String, String> sub = new java.util.HashMap<>();
    allProperties.forEach((k, v) -> {
      String n = normalize(k);
      if (n.startsWith(prefix)) {
        sub.put(n.substring(prefix.length()), v);
      }
    });
    return new StoreSettings(normalize(name), sub, allProperties);
  }

  public String storeName() {
    return storeName;
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(normalize(key))).map(String::trim).filter(v -> !v.isEmpty());
  }

  public String get(String key, String defaultValue) {
    return get(key).orElse(defaultValue);
  }

  /**
   * A whole number, or {@code defaultValue} when the setting is absent or blank.
   *
   * @throws IdempotencyConfigurationException naming {@code idempotent.<store>.<key>} and the bad value
   */
  public int getInt(String key, int defaultValue) {
    Optional<String> v = get(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(v.get());
    } catch (NumberFormatException e) {
      throw invalid(key, v.get(), "a whole number");
    }
  }

  public long getLong(String key, long defaultValue) {
    Optional<String> v = get(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    try {
      return Long.parseLong(v.get());
    } catch (NumberFormatException e) {
      throw invalid(key, v.get(), "a whole number");
    }
  }

  /**
   * An ISO-8601 duration, or {@code defaultValue} when the setting is absent or blank.
   *
   * @throws IdempotencyConfigurationException naming {@code idempotent.<store>.<key>} and the bad value
   */
  public Duration getDuration(String key, Duration defaultValue) {
    Duration d = ConfigText.duration(values.get(normalize(key)), property(key));
    return d == null ? defaultValue : d;
  }

  /**
   * {@code true} or {@code false} (in any case), or {@code defaultValue} when the setting is absent or blank.
   *
   * @throws IdempotencyConfigurationException naming {@code idempotent.<store>.<key>} and the bad value
   */
  public boolean getBoolean(String key, boolean defaultValue) {
    Boolean b = ConfigText.bool(values.get(normalize(key)), property(key));
    return b == null ? defaultValue : b;
  }

  private IdempotencyConfigurationException invalid(String key, String value, String expected) {
    return ConfigText.invalid(property(key), value, expected);
  }

  private String property(String key) {
    return "Property idempotent." + storeName + "." + key;
  }

  /** The keys present, for diagnostics; values are left out as they may hold secrets. */
  @Override
  public String toString() {
    return "StoreSettings[" + storeName + ", keys=" + new TreeMap<>(values).keySet() + "]";
  }
}
