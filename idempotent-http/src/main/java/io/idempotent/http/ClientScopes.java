package io.idempotent.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The scopes both filters give a client, whatever the request type: so that a servlet application and a
 * WebFlux application in front of one store agree on who a client is. Utility class.
 */
final class ClientScopes {

  private ClientScopes() {}

  /** The scope of the authenticated principal named {@code name}, or null for none (or a nameless one). */
  static @Nullable String principal(@Nullable String name) {
    return name == null || name.isEmpty() ? null : "principal:" + name;
  }

  /**
   * The scope of a request whose header {@code name} holds {@code value}: only its SHA-256, so a secret sent
   * as the header is never written to the store. Null when the request has no such header.
   */
  static @Nullable String header(String name, @Nullable String value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return "header:" + name.toLowerCase(Locale.ROOT) + ":" + HexFormat.of().formatHex(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every Java platform has SHA-256", e);
    }
  }
}
