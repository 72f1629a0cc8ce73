package io.idempotent.http;

import java.util.Objects;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Which client a WebFlux request comes from, for {@link IdempotencyWebFilter}: keys belong to a client, so
 * client A's key never replays client B's response. The value becomes the scope of the idempotent call. An
 * empty {@code Mono} means a request with no known client: its key is then in one space shared by every such
 * request. The built-in resolvers give the same scopes as {@link ClientScopeResolver}'s, so a servlet and a
 * WebFlux application on one store agree on who a client is.
 */
@FunctionalInterface
public interface ExchangeClientScopeResolver {

  /** The client's scope, or an empty {@code Mono} when the request has none; not subscribed more than once. */
  Mono<String> resolve(ServerWebExchange exchange);

  /**
   * The authenticated principal's name ({@link ServerWebExchange#getPrincipal()}, which Spring Security fills):
   * the default, as {@link ClientScopeResolver#principal()} is the servlet filter's.
   */
  static ExchangeClientScopeResolver principal() {
    return exchange -> exchange.getPrincipal().mapNotNull(p -> ClientScopes.principal(p.getName()));
  }

  /**
   * The value of a request header such as an API key or a tenant id. Only its SHA-256 is kept (so a secret
   * sent as the header is never written to the store); a request without the header has no client.
   */
  static ExchangeClientScopeResolver header(String name) {
    Objects.requireNonNull(name, "name");
    return exchange -> Mono.justOrEmpty(ClientScopes.header(name, exchange.getRequest().getHeaders().getFirst(name)));
  }
}
