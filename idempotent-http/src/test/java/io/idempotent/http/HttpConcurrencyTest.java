package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Many copies of one request at once, on every store: one execution, every other copy a 409 or the replay. */
class HttpConcurrencyTest {

  static final int DUPLICATES = 24;

  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void concurrentDuplicatesRunOnceAndTheRestGet409OrTheReplay(TestStore kind) throws Exception {
    ShopServlet shop = new ShopServlet();
    try (TestStore.Opened opened = kind.open(dir.resolve("store").toString());
        JettyServer server = JettyServer.start(shop, new IdempotencyFilter(settings(opened)))) {
      String key = UUID.randomUUID().toString();
      List<HttpResponse<String>> answers = fire(server, key, "/sleepy", DUPLICATES);

      assertThat(shop.executions("/sleepy")).isEqualTo(1);
      List<HttpResponse<String>> created = answers.stream().filter(r -> r.statusCode() == 201).toList();
      List<HttpResponse<String>> conflicts = answers.stream().filter(r -> r.statusCode() == 409).toList();
      assertThat(created.size() + conflicts.size()).isEqualTo(DUPLICATES);
      assertThat(created.stream().filter(r -> !Http.replayed(r))).hasSize(1);
      assertThat(created.stream().map(HttpResponse::body).distinct()).hasSize(1);
      assertThat(conflicts).allSatisfy(r -> assertThat(r.body()).contains("idempotency-key-in-progress"));
      assertThat(conflicts).isNotEmpty(); // the handler takes 300 ms: the copies did overlap it

      // afterwards every copy is a replay
      HttpResponse<String> late = new Http(server).post("/sleepy", key, "{\"sku\":\"lamp\"}");
      assertThat(Http.replayed(late)).isTrue();
      assertThat(late.body()).isEqualTo(created.get(0).body());
    }
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void concurrentDuplicatesThroughTheRetryingClientAllEndWithTheOneResponse(TestStore kind) throws Exception {
    ShopServlet shop = new ShopServlet();
    try (TestStore.Opened opened = kind.open(dir.resolve("store").toString());
        JettyServer server = JettyServer.start(shop, new IdempotencyFilter(settings(opened)))) {
      RetryingHttpClient client = RetryingHttpClient.builder(Http.CLIENT)
          .policy(new RetryPolicy(20, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(30)))
          .build();
      String key = UUID.randomUUID().toString();
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<RetriedResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          futures.add(pool.submit(() -> {
            go.await();
            return client.send(HttpRequest.newBuilder(server.uri("/sleepy")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"lamp\"}")).build(),
                HttpResponse.BodyHandlers.ofString(), key);
          }));
        }
        go.countDown();
        List<RetriedResponse<String>> results = new ArrayList<>();
        for (Future<RetriedResponse<String>> f : futures) {
          results.add(f.get(60, TimeUnit.SECONDS));
        }
        assertThat(shop.executions("/sleepy")).isEqualTo(1);
        assertThat(results).allSatisfy(r -> assertThat(r.status()).isEqualTo(201));
        assertThat(results.stream().map(RetriedResponse::body).distinct()).hasSize(1);
        assertThat(results.stream().filter(r -> !r.replayed())).hasSize(1);
        assertThat(results.stream().filter(r -> r.attempts() > 1)).isNotEmpty();
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static HttpIdempotencySettings settings(TestStore.Opened opened) {
    return HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(opened.store()).build()))
        .ttl(Duration.ofMinutes(10))
        .build();
  }

  static List<HttpResponse<String>> fire(JettyServer server, String key, String path, int copies) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    try {
      CountDownLatch go = new CountDownLatch(1);
      Http http = new Http(server);
      List<Future<HttpResponse<String>>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(pool.submit(() -> {
          go.await();
          return http.post(path, key, "{\"sku\":\"lamp\"}");
        }));
      }
      go.countDown();
      List<HttpResponse<String>> answers = new ArrayList<>();
      for (Future<HttpResponse<String>> f : futures) {
        answers.add(f.get(60, TimeUnit.SECONDS));
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }
}
