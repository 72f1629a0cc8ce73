package io.idempotent.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Maps a store key to its Redis key, injectively: the namespace prefix, then the key in UTF-8, with a
 * lone UTF-16 surrogate written as the three bytes UTF-8 would give its code point (as WTF-8 does), so
 * that keys Java tells apart stay apart and nothing is replaced by {@code ?}. Redis keys are binary-safe,
 * so NUL and control characters are kept as they are. A key longer than the limit is replaced by the byte
 * {@code 0xFF}, {@code sha256:} and the SHA-256 of its bytes; {@code 0xFF} never occurs in UTF-8, so a
 * hashed key cannot collide with an unhashed one. Immutable and thread-safe.
 */
final class RedisKeys {

  private static final byte HASHED = (byte) 0xFF;

  private final byte[] prefix;
  private final int maxKeyLength;

  RedisKeys(String prefix, int maxKeyLength) {
    this.prefix = bytes(prefix);
    this.maxKeyLength = maxKeyLength;
  }

  byte[] of(String key) {
    byte[] k = bytes(key);
    if (key.length() <= maxKeyLength) {
      return concat(prefix, k);
    }
    byte[] digest = Base64.getUrlEncoder().withoutPadding().encode(sha256(k));
    byte[] tag = "sha256:".getBytes(StandardCharsets.US_ASCII);
    return concat(concat(prefix, new byte[] {HASHED}), concat(tag, digest));
  }

  /** UTF-8, except that a lone surrogate is encoded like any other code point below U+10000. */
  static byte[] bytes(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp < 0x80) {
        out.write(cp);
      } else if (cp < 0x800) {
        out.write(0xC0 | (cp >> 6));
        out.write(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out.write(0xE0 | (cp >> 12));
        out.write(0x80 | ((cp >> 6) & 0x3F));
        out.write(0x80 | (cp & 0x3F));
      } else {
        out.write(0xF0 | (cp >> 18));
        out.write(0x80 | ((cp >> 12) & 0x3F));
        out.write(0x80 | ((cp >> 6) & 0x3F));
        out.write(0x80 | (cp & 0x3F));
      }
    }
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }
}
