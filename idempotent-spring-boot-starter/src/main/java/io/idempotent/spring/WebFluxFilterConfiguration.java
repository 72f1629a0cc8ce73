package io.idempotent.spring;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyWebFilter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Registers the {@code Idempotency-Key} filter in a reactive (WebFlux) web application, as
 * {@link HttpFilterConfiguration} does in a servlet one: {@link IdempotencyWebFilter} on the installed
 * configuration, with the application's {@link HttpIdempotencySettings} bean when it has one, at
 * {@code idempotent.http.order} in the chain of web filters.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"io.idempotent.http.IdempotencyWebFilter", "reactor.core.publisher.Mono"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnProperty(prefix = "idempotent.http", name = "enabled", havingValue = "true")
class WebFluxFilterConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "idempotencyWebFilter")
  OrderedIdempotencyWebFilter idempotencyWebFilter(InstalledIdempotency installed,
      ObjectProvider<HttpIdempotencySettings> settings, IdempotencyProperties properties) {
    HttpIdempotencySettings chosen = settings.getIfAvailable(
        () -> HttpIdempotencySettings.builder().idempotency(installed.idempotency()).build());
    return new OrderedIdempotencyWebFilter(new IdempotencyWebFilter(chosen), properties.getHttp().getOrder());
  }

  /** The filter at its place in the chain: WebFlux sorts web filters by {@link Ordered}. */
  static final class OrderedIdempotencyWebFilter implements WebFilter, Ordered {
    private final IdempotencyWebFilter filter;
    private final int order;

    OrderedIdempotencyWebFilter(IdempotencyWebFilter filter, int order) {
      this.filter = filter;
      this.order = order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
      return filter.filter(exchange, chain);
    }

    @Override
    public int getOrder() {
      return order;
    }
  }

  /**
   * Fails the start of a reactive application that asks for the filter without {@code idempotent-http} on
   * its class path, as {@link HttpFilterMissing} does for a servlet one.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.idempotent.http.IdempotencyWebFilter")
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnProperty(prefix = "idempotent.http", name = "enabled", havingValue = "true")
  static class Missing {

    @Bean
    @SuppressWarnings("DoNotCallSuggester") // Spring calls it, to fail the start
    static Object idempotencyWebFilterMissing() {
      throw new IdempotencyConfigurationException("idempotent.http.enabled=true, but the Idempotency-Key filter"
          + " is not on the class path: add the dependency io.idempotent:idempotent-http, or remove the property");
    }
  }
}
