package io.idempotent.http;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which client a request comes from: keys belong to a client, so client A's key never replays client B's
 * response. The value becomes the scope of the idempotent call. Return null for a request with no known
 * client: its key is then in one space shared by every such request.
 */
@FunctionalInterface
public interface ClientScopeResolver {

  /** The client's scope, or null when the request has none. */
  @Nullable String resolve(HttpServletRequest request);

  /** The authenticated principal's name ({@code request.getUserPrincipal()}): the default. */
  static ClientScopeResolver principal() {
    return request -> {
      Principal p = request.getUserPrincipal();
      return p == null || p.getName() == null || p.getName().isEmpty() ? null : "principal:" + p.getName();
    };
  }

  /**
   * The value of a request header such as an API key or a tenant id. Only its SHA-256 is kept (so a secret
   * sent as the header is never written to the store); a request without the header has no client.
   */
  static ClientScopeResolver header(String name) {
    Objects.requireNonNull(name, "name");
    return request -> {
      String value = request.getHeader(name);
      if (value == null || value.isEmpty()) {
        return null;
      }
      try {
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        return "header:" + name.toLowerCase(java.util.Locale.ROOT) + ":" + HexFormat.of().formatHex(hash);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("Every Java platform has SHA-256", e);
      }
    };
  }
}
