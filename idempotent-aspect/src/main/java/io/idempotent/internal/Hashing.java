package io.idempotent.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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

  /** SHA-256 of the UTF-8 bytes of {@code s}, base64url without padding. */
  public static String sha256(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return sha256(b, b.length);
  }

  /** First 12 hex digits of the SHA-256 of {@code s}: a reference for logs that does not reveal the key. */
  public static String shortReference(String s) {
    MessageDigest md = SHA256.get();
    byte[] d = md.digest(s.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[12];
    for (int i = 0; i < 6; i++) {
      out[2 * i] = HEX[(d[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[d[i] & 0xF];
    }
    return new String(out);
  }
}
