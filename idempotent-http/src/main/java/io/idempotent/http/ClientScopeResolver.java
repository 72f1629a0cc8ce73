package io.idempotent.http;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which client a request comes from: keys belong to a client, so client A's key never replays client B's
 * response. The value becomes the scope of the idempotent call. Return null for a request with no known
 * client: its key is then in one space shared by every such request. For {@link IdempotencyFilter};
 * {@link IdempotencyWebFilter} has {@link ExchangeClientScopeResolver}, whose built-in resolvers give the
 * same scopes.
 */
@FunctionalInterface
public interface ClientScopeResolver {

  /** The client's scope, or null when the request has none. */
  @Nullable String resolve(HttpServletRequest request);

  /** The authenticated principal's name ({@code request.getUserPrincipal()}): the default. */
  static ClientScopeResolver principal() {
    return request -> {
      Principal p = request.getUserPrincipal();
      return p == null ? null : ClientScopes.principal(p.getName());
    };
  }

  /**
   * The value of a request header such as an API key or a tenant id. Only its SHA-256 is kept (so a secret
   * sent as the header is never written to the store); a request without the header has no client.
   */
  static ClientScopeResolver header(String name) {
    Objects.requireNonNull(name, "name");
    return request -> ClientScopes.header(name, request.getHeader(name));
  }
}
