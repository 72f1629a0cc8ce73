package io.idempotent.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What keys a store can keep exactly as given: how long a key may be (in UTF-16 characters and in UTF-8
 * bytes) and whether it may hold U+0000 or a lone UTF-16 surrogate. The engine and one-time tokens compose
 * every stored key to obey the rules of the store it goes to — one escaping scheme and one hash format for
 * all stores — so a store keeps the key it is given as it is and never encodes it again. A store may refuse
 * a key that breaks its rules ({@link #requireAccepted}).
 *
 * <p>UTF-8 bytes are counted with a lone surrogate as the three bytes of its code unit. Every limit is at
 * least {@value #MIN_LENGTH}, so that a hashed key always fits. Immutable and thread-safe.
 *
 * <pre>{@code
 * StoreKeyRules rules = StoreKeyRules.any().maxChars(255).withoutNul().withoutLoneSurrogates();
 * }</pre>
 */
public final class StoreKeyRules {

  /** The smallest limit a store may declare: a hashed key ({@code h:} and 43 characters) must fit. */
  public static final int MIN_LENGTH = 64;

  private static final StoreKeyRules ANY = new StoreKeyRules(Integer.MAX_VALUE, Integer.MAX_VALUE, true, true);

  private final int maxChars;
  private final int maxUtf8Bytes;
  private final boolean allowsNul;
  private final boolean allowsLoneSurrogates;

  private StoreKeyRules(int maxChars, int maxUtf8Bytes, boolean allowsNul, boolean allowsLoneSurrogates) {
    this.maxChars = maxChars;
    this.maxUtf8Bytes = maxUtf8Bytes;
    this.allowsNul = allowsNul;
    this.allowsLoneSurrogates = allowsLoneSurrogates;
  }

  /** Every key, of any length and with any characters: the rules of a store that keeps Java strings. */
  public static StoreKeyRules any() {
    return ANY;
  }

  /** These rules, with keys of at most {@code n} UTF-16 characters ({@link String#length()}). */
  public StoreKeyRules maxChars(int n) {
    return new StoreKeyRules(limit(n, "maxChars"), maxUtf8Bytes, allowsNul, allowsLoneSurrogates);
  }

  /** These rules, with keys of at most {@code n} bytes in UTF-8. */
  public StoreKeyRules maxUtf8Bytes(int n) {
    return new StoreKeyRules(maxChars, limit(n, "maxUtf8Bytes"), allowsNul, allowsLoneSurrogates);
  }

  /** These rules, with keys that never hold U+0000 (PostgreSQL text cannot). */
  public StoreKeyRules withoutNul() {
    return new StoreKeyRules(maxChars, maxUtf8Bytes, false, allowsLoneSurrogates);
  }

  /** These rules, with keys that never hold a lone UTF-16 surrogate (UTF-8 cannot encode one). */
  public StoreKeyRules withoutLoneSurrogates() {
    return new StoreKeyRules(maxChars, maxUtf8Bytes, allowsNul, false);
  }

  /** Rules that keys obeying both these and {@code other} obey: for a key kept by two stores. */
  public StoreKeyRules strictest(StoreKeyRules other) {
    return new StoreKeyRules(Math.min(maxChars, other.maxChars), Math.min(maxUtf8Bytes, other.maxUtf8Bytes),
        allowsNul && other.allowsNul, allowsLoneSurrogates && other.allowsLoneSurrogates);
  }

  /** The longest key in UTF-16 characters; {@link Integer#MAX_VALUE} when unbounded. */
  public int maxChars() {
    return maxChars;
  }

  /** The longest key in UTF-8 bytes; {@link Integer#MAX_VALUE} when unbounded. */
  public int maxUtf8Bytes() {
    return maxUtf8Bytes;
  }

  /** Whether a key may hold U+0000. */
  public boolean allowsNul() {
    return allowsNul;
  }

  /** Whether a key may hold a lone UTF-16 surrogate. */
  public boolean allowsLoneSurrogates() {
    return allowsLoneSurrogates;
  }

  /** Whether {@code key} obeys these rules. */
  public boolean accepts(String key) {
    return broken(key) == null;
  }

  /**
   * Returns {@code key} if it obeys these rules.
   *
   * @throws IllegalArgumentException saying which rule the key breaks (never the key itself): keys reach a
   *     store composed by the engine, so another caller of the store passed a key it did not compose
   */
  public String requireAccepted(String key) {
    String broken = broken(key);
    if (broken != null) {
      throw new IllegalArgumentException("The key " + broken + "; this store takes keys " + this
          + " (the engine composes keys that do)");
    }
    return key;
  }

  /** The rule {@code key} breaks, or null. */
  private @Nullable String broken(String key) {
    Objects.requireNonNull(key, "key");
    int n = key.length();
    if (n > maxChars) {
      return "has " + n + " characters";
    }
    if (maxUtf8Bytes == Integer.MAX_VALUE && allowsNul && allowsLoneSurrogates) {
      return null; // nothing else to check: no need to read the characters
    }
    long bytes = 0;
    for (int i = 0; i < n; i++) {
      char c = key.charAt(i);
      if (c < 0x80) {
        if (c == 0 && !allowsNul) {
          return "holds U+0000";
        }
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        if (Character.isSurrogate(c) && !allowsLoneSurrogates) {
          return "holds a lone surrogate";
        }
        bytes += 3;
      }
    }
    return bytes > maxUtf8Bytes ? "has " + bytes + " bytes in UTF-8" : null;
  }

  private static int limit(int n, String what) {
    if (n < MIN_LENGTH) {
      throw new IllegalArgumentException(what + " must be at least " + MIN_LENGTH + ", was " + n);
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoreKeyRules r && r.maxChars == maxChars && r.maxUtf8Bytes == maxUtf8Bytes
        && r.allowsNul == allowsNul && r.allowsLoneSurrogates == allowsLoneSurrogates;
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxChars, maxUtf8Bytes, allowsNul, allowsLoneSurrogates);
  }

  /** E.g. {@code [at most 255 characters, without U+0000, without lone surrogates]}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("[");
    if (maxChars < Integer.MAX_VALUE) {
      sb.append("at most ").append(maxChars).append(" characters");
    }
    if (maxUtf8Bytes < Integer.MAX_VALUE) {
      sb.append(sb.length() > 1 ? ", " : "").append("at most ").append(maxUtf8Bytes).append(" bytes in UTF-8");
    }
    if (!allowsNul) {
      sb.append(sb.length() > 1 ? ", " : "").append("without U+0000");
    }
    if (!allowsLoneSurrogates) {
      sb.append(sb.length() > 1 ? ", " : "").append("without lone surrogates");
    }
    return sb.append(sb.length() > 1 ? "]" : "of any length and characters]").toString();
  }
}
