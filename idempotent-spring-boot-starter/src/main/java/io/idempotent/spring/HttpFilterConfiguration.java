package io.idempotent.spring;

import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers the {@code Idempotency-Key} filter in a servlet web application, on the installed
 * configuration: with the application's {@link HttpIdempotencySettings} bean when it has one (routes,
 * client scope, limits), else with the filter's defaults (POST and PATCH everywhere, key required).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"io.idempotent.http.IdempotencyFilter", "jakarta.servlet.Filter"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "idempotent.http", name = "enabled", havingValue = "true")
class HttpFilterConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "idempotencyFilter")
  FilterRegistrationBean<IdempotencyFilter> idempotencyFilter(InstalledIdempotency installed,
      ObjectProvider<HttpIdempotencySettings> settings, IdempotencyProperties properties) {
    HttpIdempotencySettings chosen = settings.getIfAvailable(
        () -> HttpIdempotencySettings.builder().idempotency(installed.idempotency()).build());
    FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(new IdempotencyFilter(chosen));
    registration.setName("idempotencyFilter");
    registration.setOrder(properties.getHttp().getOrder());
    registration.setAsyncSupported(true);
    return registration;
  }
}
