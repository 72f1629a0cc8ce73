package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server restarts between a request and its retry: a new Jetty and a new store over the same H2 file.
 * The retry replays the first response; the application does not run again.
 */
class HttpRestartTest {

  @TempDir
  Path dir;

  @Test
  void aRetryAfterARestartReplaysTheResponseRecordedBeforeIt() throws Exception {
    String file = dir.resolve("records").toString();
    String key = UUID.randomUUID().toString();
    ShopServlet before = new ShopServlet();
    HttpResponse<String> first;
    try (TestStore.Opened store = TestStore.H2.open(file);
        JettyServer server = JettyServer.start(before, filter(store))) {
      first = new Http(server).post("/orders", key, "{\"sku\":\"chair\"}");
    }
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(before.executions("/orders")).isEqualTo(1);

    ShopServlet after = new ShopServlet();
    try (TestStore.Opened store = TestStore.H2.open(file);
        JettyServer server = JettyServer.start(after, filter(store))) {
      Http http = new Http(server);
      HttpResponse<String> retry = http.post("/orders", key, "{\"sku\":\"chair\"}");
      HttpResponse<String> other = http.post("/orders", key, "{\"sku\":\"table\"}");

      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(Http.replayed(retry)).isTrue();
      assertThat(retry.body()).isEqualTo(first.body());
      assertThat(retry.headers().allValues("Location")).isEqualTo(first.headers().allValues("Location"));
      assertThat(other.statusCode()).isEqualTo(422);
      assertThat(after.totalExecutions()).isZero();
    }
  }

  private static IdempotencyFilter filter(TestStore.Opened store) {
    return new IdempotencyFilter(HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(store.store()).build()))
        .build());
  }
}
