package io.idempotent.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

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
   * @param query the query string as sent, or null when there is none; an empty one counts as none
   * @param contentType the {@code Content-Type} header, or null; compared ignoring case and surrounding spaces
   */
  public static String of(String method, String path, @Nullable String query, @Nullable String contentType,
      byte[] body) {
    Digest digest = new Digest();
    digest.add(method);
    digest.add(path);
    digest.add(query == null || query.isEmpty() ? null : query); // "/orders?" is "/orders" to every server
    digest.add(contentType == null ? null : contentType.trim().toLowerCase(java.util.Locale.ROOT));
    digest.add(body);
    return HexFormat.of().formatHex(digest.bytes());
  }

  /** A SHA-256 over length-prefixed fields: null, empty and absent stay distinct, and no field runs into the next. */
  static final class Digest {
    private final MessageDigest sha = sha256();

    void add(@Nullable String text) {
      add(text == null ? null : text.getBytes(StandardCharsets.UTF_8));
    }

    void add(byte @Nullable [] bytes) {
      if (bytes == null) {
        sha.update((byte) 0);
        return;
      }
      length(bytes.length);
      sha.update(bytes);
    }

    /** Adds the {@code size} bytes of {@code in}; a stream that holds another number of bytes is an error. */
    void add(InputStream in, long size) throws IOException {
      length(size);
      byte[] buffer = new byte[8192];
      long total = 0;
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        total += n;
      }
      if (total != size) {
        throw new IOException("A part said it held " + size + " bytes and held " + total);
      }
    }

    byte[] bytes() {
      return sha.digest();
    }

    private void length(long n) {
      sha.update((byte) 1);
      for (int shift = 56; shift >= 0; shift -= 8) {
        sha.update((byte) (n >>> shift));
      }
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every Java platform has SHA-256", e);
    }
  }
}
