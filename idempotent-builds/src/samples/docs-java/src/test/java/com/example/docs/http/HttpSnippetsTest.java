package com.example.docs.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.RetriedResponse;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class HttpSnippetsTest {

  @Test
  void theFilterIsBuiltWithTheDocsRoutes() {
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());

    assertThat(HttpSnippets.filter()).isNotNull();
  }

  @Test
  void theClientRetriesA503WithTheSameKey() throws Exception {
    List<String> keys = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", exchange -> {
      keys.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
      byte[] body = "{\"id\":\"o-1\"}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(keys.size() == 1 ? 503 : 201, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    try {
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/orders");

      RetriedResponse<String> r = HttpSnippets.post(uri, "{\"sku\":\"A-1\"}");

      assertThat(r.status()).isEqualTo(201);
      assertThat(r.attempts()).isEqualTo(2);
      assertThat(keys).hasSize(2).containsOnly('"' + r.idempotencyKey() + '"');   // an sf-string
    } finally {
      server.stop(0);
    }
  }
}
