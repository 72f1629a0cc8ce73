package io.idempotent.redis;

import io.idempotent.internal.text.Hashing;
import java.util.Arrays;

/**
 * Maps a store key to its Redis key, injectively: the namespace prefix, then the key in UTF-8, with a lone
 * UTF-16 surrogate written as the three bytes UTF-8 would give its code unit (as WTF-8 does), so that keys
 * Java tells apart stay apart and nothing is replaced by {@code ?}. Redis keys are binary-safe, so NUL and
 * control characters are kept as they are. The key is kept as given: the engine has already made it fit
 * the store's {@link io.idempotent.spi.StoreKeyRules}. Immutable and thread-safe.
 */
final class RedisKeys {

  private final byte[] prefix;

  RedisKeys(String prefix) {
    this.prefix = Hashing.exactUtf8(prefix);
  }

  /**
   * The key of the settings all instances under the prefix share: the prefix and the byte 0xFF, which the
   * UTF-8 of no store key contains, then {@code settings}.
   */
  byte[] settings() {
    byte[] tail = "settings".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(prefix, prefix.length + 1 + tail.length);
    out[prefix.length] = (byte) 0xFF;
    System.arraycopy(tail, 0, out, prefix.length + 1, tail.length);
    return out;
  }

  byte[] of(String key) {
    byte[] k = Hashing.exactUtf8(key);
    byte[] out = Arrays.copyOf(prefix, prefix.length + k.length);
    System.arraycopy(k, 0, out, prefix.length, k.length);
    return out;
  }
}
