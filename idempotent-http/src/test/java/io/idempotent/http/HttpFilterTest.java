package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyEvent;
import io.idempotent.OnInProgress;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The filter in a real Jetty on the in-memory store: what each kind of request gets back. */
class HttpFilterTest {

  private final ShopServlet shop = new ShopServlet();
  private final OutcomeProbe probe = new OutcomeProbe();
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private JettyServer server;
  private Http http;

  private void start(Consumer<HttpIdempotencySettings.Builder> settings) throws Exception {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(CaffeineIdempotencyStore.builder().build())
        .listener(e -> events.add(e.type()))
        .build());
    HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder().idempotency(idempotency);
    settings.accept(b);
    server = JettyServer.start(shop, new TestAuthentication(), probe, new IdempotencyFilter(b.build()));
    http = new Http(server);
  }

  @AfterEach
  void stop() throws Exception {
    shop.gate.countDown();
    if (server != null) {
      server.close();
    }
  }

  private static String key() {
    return UUID.randomUUID().toString();
  }

  @Test
  void aRetryReplaysStatusBodyAndRepresentationHeadersButNoCookieNorOtherHeader() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<String> first = http.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");
    HttpResponse<String> retry = http.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");

    assertThat(shop.executions("/orders")).isEqualTo(1);
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(first)).isFalse();
    assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body()).contains("\"order\":1001");
    for (String name : List.of("Content-Type", "Location", "ETag")) {
      assertThat(retry.headers().allValues(name)).as(name).isEqualTo(first.headers().allValues(name)).isNotEmpty();
    }
    assertThat(retry.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(retry.headers().firstValue("X-Trace")).isEmpty();
    assertThat(retry.headers().firstValue("X-Frame-Options")).hasValue("DENY"); // a filter in front still counts
    assertThat(events).containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
    // the filter in front reads lastOutcome() after the chain, which may be just after the client has the answer
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    while (probe.outcomes.size() < 2 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(probe.outcomes).containsExactly("/orders EXECUTED", "/orders REPLAYED");
  }

  @Test
  void theSameKeyWithAnotherRequestIsRefusedWith422AndNothingRuns() throws Exception {
    start(s -> s.route(KeyRequirement.REQUIRED, "/**", "POST", "PUT"));
    String key = key();
    assertThat(http.post("/orders", key, "{\"qty\":2}").statusCode()).isEqualTo(201);

    List<HttpResponse<String>> others = List.of(
        http.post("/orders", key, "{\"qty\":3}"),                               // body
        http.post("/orders?coupon=SPRING", key, "{\"qty\":2}"),                 // query
        http.post("/other", key, "{\"qty\":2}"),                                // path
        http.send("PUT", "/orders", key, "{\"qty\":2}", "application/json"),    // method
        http.send("POST", "/orders", key, "{\"qty\":2}", "text/plain"));        // content type
    for (HttpResponse<String> r : others) {
      assertThat(r.statusCode()).isEqualTo(422);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(r.body()).contains("\"status\":422", "idempotency-key-reused", "different request");
      assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    }
    assertThat(shop.totalExecutions()).isEqualTo(1);
  }

  @Test
  void aMissingKeyIsRefusedWith400OnARequiredRouteAndRunsUnprotectedOnAnOptionalOne() throws Exception {
    start(s -> s.route(KeyRequirement.OPTIONAL, "/other", "POST")
        .route(KeyRequirement.REQUIRED, "/orders/**", "POST", "PATCH"));
    HttpResponse<String> refused = http.post("/orders", null, "{}");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(refused.body()).contains("idempotency-key-missing", "POST /orders needs an Idempotency-Key header");
    assertThat(shop.executions("/orders")).isZero();

    http.post("/other", null, "{}");
    http.post("/other", null, "{}");
    assertThat(shop.executions("/other")).isEqualTo(2);
    // a method no route names passes untouched
    assertThat(http.send("GET", "/orders", null, null, null).statusCode()).isEqualTo(201);
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  @Test
  void oneClientsKeyNeverReplaysAnotherClientsResponse() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<String> alice = http.post("/orders", key, "{\"qty\":1}", TestAuthentication.USER_HEADER, "alice");
    HttpResponse<String> bob = http.post("/orders", key, "{\"qty\":1}", TestAuthentication.USER_HEADER, "bob");
    HttpResponse<String> aliceAgain = http.post("/orders", key, "{\"qty\":1}", TestAuthentication.USER_HEADER, "alice");

    assertThat(shop.executions("/orders")).isEqualTo(2);
    assertThat(Http.replayed(bob)).isFalse();
    assertThat(bob.body()).contains("\"user\":\"bob\"").isNotEqualTo(alice.body());
    assertThat(Http.replayed(aliceAgain)).isTrue();
    assertThat(aliceAgain.body()).isEqualTo(alice.body()).contains("\"user\":\"alice\"");
  }

  @Test
  void aClientNamedByAHeaderResolverIsKeptApartToo() throws Exception {
    start(s -> s.clientScope(ClientScopeResolver.header("X-Api-Key")));
    String key = key();
    HttpResponse<String> a = http.post("/orders", key, "{}", "X-Api-Key", "sk_live_a");
    HttpResponse<String> b = http.post("/orders", key, "{}", "X-Api-Key", "sk_live_b");
    HttpResponse<String> a2 = http.post("/orders", key, "{}", "X-Api-Key", "sk_live_a");
    assertThat(shop.executions("/orders")).isEqualTo(2);
    assertThat(b.body()).isNotEqualTo(a.body());
    assertThat(a2.body()).isEqualTo(a.body());
    assertThat(Http.replayed(a2)).isTrue();
  }

  @Test
  void aServerErrorReleasesTheKeySoTheRetryRunsAndIsThenRecorded() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<String> failed = http.post("/flaky", key, "{}");
    HttpResponse<String> retried = http.post("/flaky", key, "{}");
    HttpResponse<String> again = http.post("/flaky", key, "{}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.body()).isEqualTo("database hiccup");
    assertThat(retried.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(retried)).isFalse();
    assertThat(again.body()).isEqualTo(retried.body());
    assertThat(Http.replayed(again)).isTrue();
    assertThat(shop.executions("/flaky")).isEqualTo(2);
    assertThat(events).contains(IdempotencyEvent.Type.RELEASED_ON_FAILURE);
  }

  @Test
  void serverErrorsAreRecordedWhenConfiguredSo() throws Exception {
    start(s -> s.recordServerErrors(true));
    String key = key();
    HttpResponse<String> failed = http.post("/flaky", key, "{}");
    HttpResponse<String> retried = http.post("/flaky", key, "{}");
    assertThat(retried.statusCode()).isEqualTo(500);
    assertThat(retried.body()).isEqualTo(failed.body());
    assertThat(Http.replayed(retried)).isTrue();
    assertThat(shop.executions("/flaky")).isEqualTo(1);
  }

  @Test
  void aClientErrorOfTheApplicationIsRecordedAndReplayed() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<String> declined = http.post("/declined", key, "{\"card\":\"4000000000000002\"}");
    HttpResponse<String> retried = http.post("/declined", key, "{\"card\":\"4000000000000002\"}");
    assertThat(declined.statusCode()).isEqualTo(402);
    assertThat(retried.statusCode()).isEqualTo(402);
    assertThat(retried.body()).isEqualTo(declined.body()).contains("\"attempt\":1");
    assertThat(Http.replayed(retried)).isTrue();
    assertThat(shop.executions("/declined")).isEqualTo(1);
  }

  @Test
  void aDuplicateWhileTheFirstRunsGets409WithAProblemBody() throws Exception {
    start(s -> {});
    String key = key();
    CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> http.post("/slow", key, "{}"));
    assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

    HttpResponse<String> duplicate = http.post("/slow", key, "{}");
    assertThat(duplicate.statusCode()).isEqualTo(409);
    assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(duplicate.body()).contains("idempotency-key-in-progress", "still being processed");

    shop.gate.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    assertThat(shop.executions("/slow")).isEqualTo(1);
    assertThat(events).contains(IdempotencyEvent.Type.IN_PROGRESS);
  }

  @Test
  void withWaitADuplicateWhileTheFirstRunsGetsItsResponse() throws Exception {
    start(s -> s.onInProgress(OnInProgress.WAIT).waitTimeout(Duration.ofSeconds(20)));
    String key = key();
    CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> http.post("/slow", key, "{}"));
    assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<HttpResponse<String>> duplicate =
        CompletableFuture.supplyAsync(() -> http.post("/slow", key, "{}"));
    Thread.sleep(200); // the duplicate is waiting
    assertThat(duplicate).isNotDone();

    shop.gate.countDown();
    HttpResponse<String> waited = duplicate.get(20, TimeUnit.SECONDS);
    assertThat(waited.statusCode()).isEqualTo(201);
    assertThat(waited.body()).isEqualTo(first.get(10, TimeUnit.SECONDS).body());
    assertThat(Http.replayed(waited)).isTrue();
    assertThat(shop.executions("/slow")).isEqualTo(1);
  }

  @Test
  void formParametersOfABodyTheFilterReadStillReachTheApplication() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<String> r = http.send("POST", "/form?item=caf%C3%A9", key, "qty=3&note=a+b",
        "application/x-www-form-urlencoded; charset=UTF-8");
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.body()).isEqualTo("item=café qty=3");
  }
}
