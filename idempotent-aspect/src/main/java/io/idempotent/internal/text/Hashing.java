package io.idempotent.internal.text;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/** SHA-256 helpers shared by key hashing, fingerprints and event references. */
public final class Hashing {

  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(Hashing::newSha256);
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Hashing() {}

  static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  /** SHA-256 of {@code bytes[0..length)}, base64url without padding (43 characters). */
  public static String sha256(byte[] bytes, int length) {
    MessageDigest md = SHA256.get();
    md.update(bytes, 0, length);
    return B64.encodeToString(md.digest());
  }

  /** SHA-256 of the exact characters of {@code s} ({@link #exactUtf8}), base64url without padding. */
  public static String sha256(String s) {
    byte[] b = exactUtf8(s);
    return sha256(b, b.length);
  }

  /** First 12 hex digits of the SHA-256 of {@code s}: a reference for logs that does not reveal the key. */
  public static String shortReference(String s) {
    MessageDigest md = SHA256.get();
    byte[] d = md.digest(exactUtf8(s));
    char[] out = new char[12];
    for (int i = 0; i < 6; i++) {
      out[2 * i] = HEX[(d[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[d[i] & 0xF];
    }
    return new String(out);
  }

  /**
   * The UTF-8 bytes of {@code s}, except that a lone surrogate is written as the three bytes UTF-8 would
   * give its code unit (as WTF-8 does), where {@link String#getBytes} would write {@code ?}. Distinct strings
   * therefore never share bytes, and a string without lone surrogates gets exactly its UTF-8, so hashes
   * of such strings are what they always were. Stores that write keys as bytes use it too.
   */
  public static byte[] exactUtf8(String s) {
    int n = s.length();
    byte[] out = new byte[n * 3];
    int len = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        out[len++] = (byte) c;
      } else if (c < 0x800) {
        out[len++] = (byte) (0xC0 | (c >> 6));
        out[len++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        out[len++] = (byte) (0xF0 | (cp >> 18));
        out[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        out[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        out[len++] = (byte) (0x80 | (cp & 0x3F));
      } else {
        // any other code unit below U+10000, a lone surrogate included
        out[len++] = (byte) (0xE0 | (c >> 12));
        out[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        out[len++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return len == out.length ? out : Arrays.copyOf(out, len);
  }
}
