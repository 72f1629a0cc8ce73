package io.idempotent.internal;

import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.StoreKeyRules;

/**
 * Builds the stored key from namespace, optional scope and key, once, for the store it goes to, so that
 * distinct triples never give the same stored key and the store can keep it as it is:
 *
 * <ol>
 *   <li>name and scope are length-prefixed: {@code len(name):name} + ({@code -} | {@code len(scope):scope})
 *       + {@code |} + key;
 *   <li>for a store whose {@link StoreKeyRules} refuse U+0000 or lone surrogates, {@code \} is written
 *       {@code \\}, U+0000 (if refused) {@code \0} and a lone surrogate (if refused) {@code \}{@code uXXXX};
 *       every other character stays, so escapes are never confused with text;
 *   <li>a result too long for the store (characters or UTF-8 bytes) becomes {@code h:} + the SHA-256
 *       (Base64url) of the exact characters of step 1 ({@link Hashing#sha256(String)}): the same for every
 *       store, keys differing only in a lone surrogate stay apart, and it cannot equal an unhashed key,
 *       which always starts with a digit.
 * </ol>
 */
public final class StoredKeys {

  static final String HASH_PREFIX = "h:";

  private StoredKeys() {}

  public static String compose(String name, String scope, String key, StoreKeyRules rules) {
    StringBuilder sb = new StringBuilder(name.length() + key.length() + (scope == null ? 8 : scope.length() + 12));
    sb.append(name.length()).append(':').append(name);
    if (scope == null) {
      sb.append('-');
    } else {
      sb.append(scope.length()).append(':').append(scope);
    }
    sb.append('|').append(key);
    String full = sb.toString();
    String stored = rules.allowsNul() && rules.allowsLoneSurrogates() ? full : escaped(full, rules);
    return rules.accepts(stored) ? stored : HASH_PREFIX + Hashing.sha256(full);
  }

  private static String escaped(String s, StoreKeyRules rules) {
    StringBuilder sb = null;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      String escape = null;
      if (c == '\\') {
        escape = "\\\\";
      } else if (c == '\u0000' && !rules.allowsNul()) {
        escape = "\\0";
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (sb != null) {
          sb.append(c).append(s.charAt(i + 1));
        }
        i++;
        continue;
      } else if (Character.isSurrogate(c) && !rules.allowsLoneSurrogates()) {
        escape = String.format("\\u%04X", (int) c);
      }
      if (escape != null && sb == null) {
        sb = new StringBuilder(n + 16).append(s, 0, i);
      }
      if (sb != null) {
        if (escape != null) {
          sb.append(escape);
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? s : sb.toString();
  }
}
