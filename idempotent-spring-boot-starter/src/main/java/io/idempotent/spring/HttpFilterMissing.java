package io.idempotent.spring;

import io.idempotent.IdempotencyConfigurationException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Fails the start of a servlet application that asks for the {@code Idempotency-Key} filter
 * ({@code idempotent.http.enabled=true}) without {@code idempotent-http} on its class path: its POST and PATCH
 * routes would otherwise run unprotected, with nothing to say so.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingClass("io.idempotent.http.IdempotencyFilter")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "idempotent.http", name = "enabled", havingValue = "true")
class HttpFilterMissing {

  @Bean
  @SuppressWarnings("DoNotCallSuggester") // Spring calls it, to fail the start
  static Object idempotencyFilterMissing() {
    throw new IdempotencyConfigurationException("idempotent.http.enabled=true, but the Idempotency-Key filter is"
        + " not on the class path: add the dependency io.idempotent:idempotent-http, or remove the property");
  }
}
