package io.idempotent.internal;

/**
 * Builds the stored key from namespace, optional scope and key so that distinct triples never give
 * the same string: name and scope are length-prefixed. Keys longer than a store's limit are replaced
 * by a hash, which cannot collide with an unhashed key since those always start with a digit. The hash
 * is over the exact characters ({@link Hashing#sha256(String)}), so keys differing only in a lone
 * surrogate stay apart, and it is the same for every store.
 */
public final class StoredKeys {

  static final String HASH_PREFIX = "h:";

  private StoredKeys() {}

  public static String compose(String name, String scope, String key, int maxLength) {
    StringBuilder sb = new StringBuilder(name.length() + key.length() + (scope == null ? 8 : scope.length() + 12));
    sb.append(name.length()).append(':').append(name);
    if (scope == null) {
      sb.append('-');
    } else {
      sb.append(scope.length()).append(':').append(scope);
    }
    sb.append('|').append(key);
    String full = sb.toString();
    return full.length() <= maxLength ? full : HASH_PREFIX + Hashing.sha256(full);
  }
}
