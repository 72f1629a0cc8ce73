package com.example.docs.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** The README's WebFlux filter bean, in front of a handler on Reactor Netty: a payment is made once. */
class WebFluxFilterConfigTest {

  @Test
  void aRetriedPayment_isReplayed_andAPaymentWithoutAKeyIsRefused() throws Exception {
    Idempotency idempotency = Idempotency.create(
        IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    AtomicInteger payments = new AtomicInteger();
    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
        .handle(new ReactorHttpHandlerAdapter(WebHttpHandlerBuilder.webHandler(exchange -> {
          int n = payments.incrementAndGet();
          exchange.getResponse().setStatusCode(HttpStatus.CREATED);
          return exchange.getResponse().writeWith(Mono.just(
              exchange.getResponse().bufferFactory().wrap(("payment " + n).getBytes())));
        }).filter(new WebFluxFilterConfig().idempotencyWebFilter(idempotency)).build()))
        .bindNow();
    try {
      HttpClient client = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/payments/p-1");
      HttpRequest keyed = HttpRequest.newBuilder(uri).header("Idempotency-Key", "\"k-1\"")
          .POST(HttpRequest.BodyPublishers.ofString("{\"cents\":500}")).build();
      HttpResponse<String> first = client.send(keyed, HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> retry = client.send(keyed, HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> keyless = client.send(HttpRequest.newBuilder(uri)
          .POST(HttpRequest.BodyPublishers.ofString("{\"cents\":500}")).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(first.statusCode()).isEqualTo(201);
      assertThat(retry.body()).isEqualTo(first.body()).isEqualTo("payment 1");
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
      assertThat(keyless.statusCode()).isEqualTo(400);
      assertThat(payments).hasValue(1);
    } finally {
      server.disposeNow();
    }
  }
}
