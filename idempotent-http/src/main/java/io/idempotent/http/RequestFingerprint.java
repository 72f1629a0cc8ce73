package io.idempotent.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What makes two requests "the same request" for one key: method, path, query string, content type and
 * the body's bytes, each length-prefixed so no two different requests share the encoding, hashed with
 * SHA-256. A retry must match all five; headers other than the content type do not count (they may
 * differ between attempts: a trace id, a date, an authorization refreshed). Utility class.
 */
public final class RequestFingerprint {

  private RequestFingerprint() {}

  /**
   * The hex SHA-256 of the request's parts.
   *
   * @param path the request's path as sent, without the query
   * @param query the query string as sent, or null when there is none (differs from an empty one)
   * @param contentType the {@code Content-Type} header, or null; compared ignoring case and surrounding spaces
   */
  public static String of(String method, String path, String query, String contentType, byte[] body) {
    MessageDigest sha = sha256();
    part(sha, method);
    part(sha, path);
    part(sha, query);
    part(sha, contentType == null ? null : contentType.trim().toLowerCase(java.util.Locale.ROOT));
    part(sha, body);
    return HexFormat.of().formatHex(sha.digest());
  }

  private static void part(MessageDigest sha, String text) {
    part(sha, text == null ? null : text.getBytes(StandardCharsets.UTF_8));
  }

  private static void part(MessageDigest sha, byte[] bytes) {
    if (bytes == null) {
      sha.update((byte) 0);
      return;
    }
    sha.update((byte) 1);
    long n = bytes.length;
    for (int shift = 56; shift >= 0; shift -= 8) {
      sha.update((byte) (n >>> shift));
    }
    sha.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every Java platform has SHA-256", e);
    }
  }
}
