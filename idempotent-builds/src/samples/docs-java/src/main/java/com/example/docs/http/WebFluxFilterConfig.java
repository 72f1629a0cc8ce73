package com.example.docs.http;

import io.idempotent.http.ExchangeClientScopeResolver;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyWebFilter;
import io.idempotent.http.KeyRequirement;
import io.idempotent.runtime.Idempotency;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebFilter;

/** idempotent-http/README.md: the WebFlux filter as a bean. */
@Configuration(proxyBeanMethods = false)
public class WebFluxFilterConfig {

  // README snippet: webflux-filter
}
