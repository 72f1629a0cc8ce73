package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyEvent;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.ProblemResponses.Problem;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** The WebFlux filter in a real Reactor Netty server on the in-memory store: what each kind of request gets. */
class WebFilterTest {

  static final ObjectMapper JSON = new ObjectMapper();

  private final Shop shop = new Shop();
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private Server server;

  @AfterEach
  void stop() throws Exception {
    shop.gate.tryEmitEmpty();
    if (server != null) {
      server.close();
    }
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  private void start(Consumer<HttpIdempotencySettings.Builder> settings) {
    start(settings, CaffeineIdempotencyStore.builder().build(), ExchangeClientScopeResolver.principal());
  }

  private void start(Consumer<HttpIdempotencySettings.Builder> settings, IdempotencyStore store,
      ExchangeClientScopeResolver clientScope) {
    resources.add(store);
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store)
        .listener(e -> events.add(e.type())).build());
    HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder().idempotency(idempotency);
    settings.accept(b);
    server = Server.start(shop.routes(), new IdempotencyWebFilter(b.build(), clientScope));
  }

  private static String key() {
    return UUID.randomUUID().toString();
  }

  /** The events so far, once there are {@code n} (the listener may hear of a call a moment after its answer). */
  private List<IdempotencyEvent.Type> eventsOnceThereAre(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (events.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return events;
  }

  @Test
  void aRetryReplaysStatusBodyBytesAndRepresentationHeadersButNoCookieNorOtherHeader() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");
    HttpResponse<byte[]> retry = server.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");

    assertThat(shop.executions("/orders")).isEqualTo(1);
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(first)).isFalse();
    assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
    assertThat(first.headers().firstValue("X-Trace")).isPresent();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(new String(retry.body(), StandardCharsets.UTF_8)).contains("\"order\":1001", "café ☕");
    for (String name : List.of("Content-Type", "Location", "ETag")) {
      assertThat(retry.headers().allValues(name)).as(name).isEqualTo(first.headers().allValues(name)).isNotEmpty();
    }
    assertThat(retry.headers().firstValueAsLong("Content-Length")).hasValue(first.body().length);
    assertThat(retry.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(retry.headers().firstValue("X-Trace")).isEmpty();
    assertThat(retry.headers().firstValue("X-Frame-Options")).hasValue("DENY"); // a filter in front still counts
    assertThat(eventsOnceThereAre(2)).containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
  }

  @Test
  void aBinaryBodyIsReplayedByteForByte() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/binary", key, "{}");
    HttpResponse<byte[]> retry = server.post("/binary", key, "{}");

    assertThat(first.body()).isEqualTo(Shop.BINARY);
    assertThat(retry.body()).isEqualTo(Shop.BINARY);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(retry.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
    assertThat(shop.executions("/binary")).isEqualTo(1);
  }

  @Test
  void theApplicationReadsTheBodyTheFilterReadAndTheKey() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> echo = server.post("/echo", key, "{\"note\":\"read twice\"}");
    assertThat(text(echo)).isEqualTo("{\"note\":\"read twice\"} key=" + key);

    HttpResponse<byte[]> form = server.send("POST", "/form", key(), "sku=lamp&qty=3&qty=4",
        "application/x-www-form-urlencoded");
    assertThat(text(form)).isEqualTo("{sku=[lamp], qty=[3, 4]}");
  }

  @Test
  void theSameKeyWithAnotherRequestIsRefusedWith422AndNothingRuns() {
    start(s -> s.route(KeyRequirement.REQUIRED, "/**", "POST", "PUT"));
    String key = key();
    assertThat(server.post("/orders", key, "{\"qty\":2}").statusCode()).isEqualTo(201);

    List<HttpResponse<byte[]>> others = List.of(
        server.post("/orders", key, "{\"qty\":3}"),                               // body
        server.post("/orders?coupon=SPRING", key, "{\"qty\":2}"),                 // query
        server.post("/echo", key, "{\"qty\":2}"),                                 // path
        server.send("PUT", "/orders", key, "{\"qty\":2}", "application/json"),    // method
        server.send("POST", "/orders", key, "{\"qty\":2}", "text/plain"));        // content type
    for (HttpResponse<byte[]> r : others) {
      assertThat(r.statusCode()).isEqualTo(422);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(text(r)).contains("\"status\":422", "idempotency-key-reused", "different request");
      assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    }
    assertThat(shop.totalExecutions()).isEqualTo(1);
  }

  @Test
  void aMissingKeyIsRefusedWith400OnARequiredRouteAndRunsUnprotectedOnAnOptionalOne() {
    start(s -> s.route(KeyRequirement.OPTIONAL, "/echo", "POST")
        .route(KeyRequirement.REQUIRED, "/orders/**", "POST", "PATCH"));
    HttpResponse<byte[]> refused = server.post("/orders", null, "{}");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(text(refused)).contains("idempotency-key-missing", "POST /orders needs an Idempotency-Key header");
    assertThat(shop.executions("/orders")).isZero();

    server.post("/echo", null, "{}");
    server.post("/echo", null, "{}");
    assertThat(shop.executions("/echo")).isEqualTo(2);
    // a method no route names passes untouched, and so does a path no route names
    assertThat(server.send("GET", "/orders", null, null, null).statusCode()).isEqualTo(200);
    assertThat(server.post("/binary", null, "{}").statusCode()).isEqualTo(200);
    assertThat(shop.executions("/orders")).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"Idempotency-Key: \"unterminated", "Idempotency-Key: a b",
      "Idempotency-Key: \"k\";p=1", "Idempotency-Key: \"\"", "Idempotency-Key: "})
  void aMalformedKeyIsRefusedWith400AndNothingRuns(String header) throws Exception {
    start(s -> {});
    RawHttp.Answer answer = server.raw("POST", "/orders", "{}", header);
    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.body()).contains("idempotency-key-malformed");
    assertThat(shop.totalExecutions()).isZero();
  }

  @Test
  void aKeyTooLongOrSentTwiceIsRefusedWith400() throws Exception {
    start(s -> s.maxKeyLength(8));
    RawHttp.Answer tooLong = server.raw("POST", "/orders", "{}", "Idempotency-Key: \"123456789\"");
    RawHttp.Answer twice = server.raw("POST", "/orders", "{}", "Idempotency-Key: \"a\"", "Idempotency-Key: \"b\"");
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.body()).contains("longer than 8 characters");
    assertThat(twice.status()).isEqualTo(400);
    assertThat(twice.body()).contains("appears 2 times");
    assertThat(server.raw("POST", "/orders", "{}", "Idempotency-Key: \"12345678\"").status()).isEqualTo(201);
    assertThat(shop.totalExecutions()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/orders%2Fx", "/orders%2fx", "/a/../orders", "/orders/.", "/./orders", "/orders/%2e%2e",
      "/%2E/orders", "/orders%5C", "/orders%01", "//orders", "/orders//x", "/orders/..;x=1", "/orders%C0%AF",
      "/;x=1/orders"})
  void anAmbiguousPathIsRefusedWith400WhateverTheKey(String path) throws Exception {
    start(s -> {});
    RawHttp.Answer withKey = server.raw("POST", path, "{}", "Idempotency-Key: \"" + key() + "\"");
    RawHttp.Answer withoutKey = server.raw("POST", path, "{}");
    for (RawHttp.Answer answer : List.of(withKey, withoutKey)) {
      assertThat(answer.status()).as(path).isEqualTo(400);
      assertThat(answer.body()).as(path).contains("request-path-ambiguous", "The request path " + path);
    }
    assertThat(shop.totalExecutions()).isZero();
    // a method no route names is not the filter's to judge
    assertThat(server.raw("GET", path, "").status()).as(path).isNotEqualTo(400);
  }

  @Test
  void anotherSpellingOfThePlainPathIsTheSameRequest() throws Exception {
    start(s -> {});
    String key = key();
    RawHttp.Answer first = server.raw("POST", "/orders", "{}", "Idempotency-Key: \"" + key + "\"");
    RawHttp.Answer encoded = server.raw("POST", "/%6Frders", "{}", "Idempotency-Key: \"" + key + "\"");
    RawHttp.Answer parameter = server.raw("POST", "/orders;v=1", "{}", "Idempotency-Key: \"" + key + "\"");
    assertThat(first.status()).isEqualTo(201);
    for (RawHttp.Answer retry : List.of(encoded, parameter)) {
      assertThat(retry.status()).isEqualTo(201);
      assertThat(retry.values("Idempotent-Replayed")).containsExactly("true");
      assertThat(retry.body()).isEqualTo(first.body());
    }
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  static String multipart(String boundary, String note, String fileName, String file) {
    return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n" + note + "\r\n"
        + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName + "\"\r\n"
        + "Content-Type: text/plain\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
  }

  private HttpResponse<byte[]> upload(String key, String boundary, String note, String fileName, String file) {
    return server.send("POST", "/upload", key, multipart(boundary, note, fileName, file),
        "multipart/form-data; boundary=" + boundary);
  }

  @Test
  void aMultipartRetryWithANewBoundaryReplaysAndTheApplicationReadsTheParts() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = upload(key, "boundary-one", "birthday", "card.txt", "Happy birthday!");
    HttpResponse<byte[]> retry = upload(key, "another-boundary-2", "birthday", "card.txt", "Happy birthday!");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(text(first)).startsWith("note=birthday file=card.txt:Happy birthday! #1");
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(shop.executions("/upload")).isEqualTo(1);
  }

  @Test
  void theSameKeyWithAnotherFileOrFieldIsRefusedWith422() {
    start(s -> {});
    String key = key();
    assertThat(upload(key, "b1", "birthday", "card.txt", "Happy birthday!").statusCode()).isEqualTo(201);
    for (HttpResponse<byte[]> other : List.of(
        upload(key, "b2", "birthday", "card.txt", "Happy anniversary!"),
        upload(key, "b3", "birthday", "other.txt", "Happy birthday!"),
        upload(key, "b4", "wedding", "card.txt", "Happy birthday!"))) {
      assertThat(other.statusCode()).isEqualTo(422);
      assertThat(text(other)).contains("idempotency-key-reused");
    }
    assertThat(shop.executions("/upload")).isEqualTo(1);
  }

  @Test
  void aMultipartBodyThatDoesNotParseIsRefusedWith400() {
    start(s -> {});
    HttpResponse<byte[]> refused = server.send("POST", "/upload", key(), "--other\r\nnot a part at all",
        "multipart/form-data; boundary=expected");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(text(refused)).contains("request-body-malformed", "could not be read");
    assertThat(shop.executions("/upload")).isZero();
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413WhetherItsLengthIsDeclaredOrNot() throws Exception {
    start(s -> s.maxRequestBodyBytes(64));
    String big = "{\"note\":\"" + "x".repeat(100) + "\"}";
    HttpResponse<byte[]> declared = server.post("/orders", key(), big);
    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(text(declared)).contains("request-body-too-large", "larger than 64 bytes");

    RawHttp.Answer chunked = server.rawChunked("/orders", big, "Idempotency-Key: \"" + key() + "\"");
    assertThat(chunked.status()).isEqualTo(413);
    assertThat(chunked.body()).contains("request-body-too-large");
    assertThat(shop.totalExecutions()).isZero();

    String fits = "{\"note\":\"" + "x".repeat(40) + "\"}";
    assertThat(server.rawChunked("/orders", fits, "Idempotency-Key: \"" + key() + "\"").status()).isEqualTo(201);
  }

  @Test
  void aServerErrorReleasesTheKeySoTheRetryRunsAndIsThenRecorded() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> failed = server.post("/flaky", key, "{}");
    HttpResponse<byte[]> retried = server.post("/flaky", key, "{}");
    HttpResponse<byte[]> again = server.post("/flaky", key, "{}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(text(failed)).isEqualTo("database hiccup");
    assertThat(retried.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retried)).isFalse();
    assertThat(again.body()).isEqualTo(retried.body());
    assertThat(Server.replayed(again)).isTrue();
    assertThat(shop.executions("/flaky")).isEqualTo(2);
    assertThat(eventsOnceThereAre(3)).contains(IdempotencyEvent.Type.RELEASED_ON_FAILURE);
  }

  @Test
  void serverErrorsAreRecordedWhenConfiguredSo() {
    start(s -> s.recordServerErrors(true));
    String key = key();
    HttpResponse<byte[]> failed = server.post("/flaky", key, "{}");
    HttpResponse<byte[]> retried = server.post("/flaky", key, "{}");
    assertThat(retried.statusCode()).isEqualTo(500);
    assertThat(retried.body()).isEqualTo(failed.body());
    assertThat(Server.replayed(retried)).isTrue();
    assertThat(shop.executions("/flaky")).isEqualTo(1);
  }

  @Test
  void anErrorFromTheHandlerReleasesTheKeyAndTakesTheHeadersItSetWithIt() throws Exception {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> failed = server.post("/boom", key, "{}");
    HttpResponse<byte[]> retried = server.post("/boom", key, "{}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.headers().firstValue("Location")).isEmpty(); // set by the handler before it failed
    assertThat(text(failed)).doesNotContain("half");
    assertThat(failed.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    assertThat(retried.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retried)).isFalse();
    assertThat(shop.executions("/boom")).isEqualTo(2);
    assertThat(eventsOnceThereAre(2)).contains(IdempotencyEvent.Type.RELEASED_ON_FAILURE);
  }

  @Test
  void aClientErrorOfTheApplicationIsRecordedAndReplayed() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> declined = server.post("/declined", key, "{\"card\":\"4000000000000002\"}");
    HttpResponse<byte[]> retried = server.post("/declined", key, "{\"card\":\"4000000000000002\"}");
    assertThat(declined.statusCode()).isEqualTo(402);
    assertThat(retried.statusCode()).isEqualTo(402);
    assertThat(retried.body()).isEqualTo(declined.body());
    assertThat(Server.replayed(retried)).isTrue();
    assertThat(shop.executions("/declined")).isEqualTo(1);
  }

  @Test
  void anErrorTheApplicationAnswersItselfIsItsResponseAndIsRecorded() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/sold-out", key, "{}");
    HttpResponse<byte[]> retry = server.post("/sold-out", key, "{}");
    assertThat(first.statusCode()).isEqualTo(409);
    assertThat(text(first)).startsWith("sold out ");
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(shop.executions("/sold-out")).isEqualTo(1);
  }

  @Test
  void anEmptyResponseIsRecordedAndReplayed() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/accepted", key, "{}");
    HttpResponse<byte[]> retry = server.post("/accepted", key, "{}");
    assertThat(first.statusCode()).isEqualTo(202);
    assertThat(retry.statusCode()).isEqualTo(202);
    assertThat(retry.body()).isEmpty();
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(shop.executions("/accepted")).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/big", "/big-at-once"})
  void aResponseOverTheRecordingLimitIsSentWholeAndNotRecorded(String path) {
    start(s -> s.maxRecordedBodyBytes(1000));
    String key = key();
    HttpResponse<byte[]> first = server.post(path, key, "{}");
    HttpResponse<byte[]> second = server.post(path, key, "{}");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo(Shop.big());
    assertThat(second.body()).isEqualTo(Shop.big());
    assertThat(Server.replayed(second)).isFalse();
    assertThat(shop.executions(path)).isEqualTo(2);
  }

  @Test
  void aResponseOfExactlyTheRecordingLimitIsRecorded() {
    start(s -> s.maxRecordedBodyBytes(Shop.big().length));
    String key = key();
    HttpResponse<byte[]> first = server.post("/big", key, "{}");
    HttpResponse<byte[]> second = server.post("/big", key, "{}");
    assertThat(second.body()).isEqualTo(first.body()).isEqualTo(Shop.big());
    assertThat(Server.replayed(second)).isTrue();
    assertThat(shop.executions("/big")).isEqualTo(1);
  }

  @Test
  void aStreamedResponseIsSentAsWrittenAndNotRecorded() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/events", key, "{}");
    HttpResponse<byte[]> second = server.post("/events", key, "{}");
    assertThat(text(first)).contains("data:one", "data:two");
    assertThat(Server.replayed(second)).isFalse();
    assertThat(text(second)).contains("data:one", "data:two");
    assertThat(shop.executions("/events")).isEqualTo(2);
  }

  @Test
  void aDuplicateWhileTheFirstRunsGets409WithAProblemBodyAndTheFirstIsThenReplayed() throws Exception {
    start(s -> {});
    String key = key();
    var first = java.util.concurrent.CompletableFuture.supplyAsync(() -> server.post("/slow", key, "{}"));
    assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

    HttpResponse<byte[]> duplicate = server.post("/slow", key, "{}");
    assertThat(duplicate.statusCode()).isEqualTo(409);
    assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(text(duplicate)).contains("idempotency-key-in-progress");

    shop.gate.tryEmitEmpty();
    HttpResponse<byte[]> done = first.get(10, TimeUnit.SECONDS);
    assertThat(done.statusCode()).isEqualTo(201);
    HttpResponse<byte[]> retry = server.post("/slow", key, "{}");
    assertThat(retry.body()).isEqualTo(done.body());
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(shop.executions("/slow")).isEqualTo(1);
  }

  @Test
  void oneClientsKeyNeverReplaysAnotherClientsResponse() {
    start(s -> {});
    String key = key();
    HttpResponse<byte[]> alice = server.post("/orders", key, "{\"qty\":1}", Shop.USER_HEADER, "alice");
    HttpResponse<byte[]> bob = server.post("/orders", key, "{\"qty\":1}", Shop.USER_HEADER, "bob");
    HttpResponse<byte[]> aliceAgain = server.post("/orders", key, "{\"qty\":1}", Shop.USER_HEADER, "alice");

    assertThat(shop.executions("/orders")).isEqualTo(2);
    assertThat(Server.replayed(bob)).isFalse();
    assertThat(text(bob)).contains("\"user\":\"bob\"").isNotEqualTo(text(alice));
    assertThat(Server.replayed(aliceAgain)).isTrue();
    assertThat(aliceAgain.body()).isEqualTo(alice.body());
    assertThat(text(alice)).contains("\"user\":\"alice\"");
  }

  @Test
  void aClientNamedByAHeaderResolverIsKeptApartToo() {
    start(s -> {}, CaffeineIdempotencyStore.builder().build(), ExchangeClientScopeResolver.header("X-Api-Key"));
    String key = key();
    HttpResponse<byte[]> a = server.post("/orders", key, "{}", "X-Api-Key", "sk_live_a");
    HttpResponse<byte[]> b = server.post("/orders", key, "{}", "X-Api-Key", "sk_live_b");
    HttpResponse<byte[]> a2 = server.post("/orders", key, "{}", "X-Api-Key", "sk_live_a");
    assertThat(shop.executions("/orders")).isEqualTo(2);
    assertThat(b.body()).isNotEqualTo(a.body());
    assertThat(a2.body()).isEqualTo(a.body());
    assertThat(Server.replayed(a2)).isTrue();
  }

  @Test
  void theBuiltInResolversGiveTheScopesOfTheServletFiltersOwn() {
    assertThat(ClientScopes.principal("alice")).isEqualTo("principal:alice");
    assertThat(ClientScopes.principal("")).isNull();
    assertThat(ClientScopes.header("X-Api-Key", "sk")).startsWith("header:x-api-key:").doesNotContain("sk_");
    assertThat(ClientScopes.header("X-Api-Key", null)).isNull();
  }

  @Test
  void aFailingStoreAnswers503AndNothingRuns() throws Exception {
    HikariDataSource pool = h2Pool();
    IdempotencyStore store = JdbiIdempotencyStore.builder(pool).createSchema(true).build();
    start(s -> {}, store, ExchangeClientScopeResolver.principal());
    assertThat(server.post("/orders", key(), "{}").statusCode()).isEqualTo(201); // the store works
    pool.close(); // and now fails: every connection is refused

    HttpResponse<byte[]> refused = server.post("/orders", key(), "{}");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(text(refused)).contains("idempotency-store-unavailable", "nothing was done");
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  static HikariDataSource h2Pool() {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl("jdbc:h2:mem:webfilter-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    c.setUsername("sa");
    c.setPassword("");
    c.setMaximumPoolSize(24);
    return new HikariDataSource(c);
  }

  @Test
  void aClientThatGoesAwayWhileTheHandlerRuns_leavesItToFinish_andItsRetryGetsTheRecordedResponse() throws Exception {
    start(s -> {});
    String key = key();
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST /delayed HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Idempotency-Key: \"" + key + "\"\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(shop.delayedStarted.await(10, TimeUnit.SECONDS)).isTrue();
    } // gone before the handler answers

    // the handler's effect may have happened: it is left to finish, and a retry gets what it answered
    HttpResponse<byte[]> retry = Server.untilNot409(() -> server.post("/delayed", key, "{}"));
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(shop.executions("/delayed")).isEqualTo(1);
    assertThat(shop.completions.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Problem.class)
  void refusal_ofEachKind_isTheServletFiltersProblem(Problem problem) throws Exception {
    String k = key();
    String key = "Idempotency-Key: \"" + k + "\"";
    RawHttp.Answer answer;
    switch (problem) {
      case KEY_MISSING -> {
        start(s -> {});
        answer = server.raw("POST", "/orders", "{}", "Content-Type: application/json");
      }
      case KEY_MALFORMED -> {
        start(s -> {});
        answer = server.raw("POST", "/orders", "{}", "Idempotency-Key: \"unterminated");
      }
      case BODY_TOO_LARGE -> {
        start(s -> s.maxRequestBodyBytes(8));
        answer = server.raw("POST", "/orders", "{\"qty\":12}", key);
      }
      case BODY_MALFORMED -> {
        start(s -> {});
        answer = server.raw("POST", "/orders", "--other\r\nnot a part at all", key,
            "Content-Type: multipart/form-data; boundary=expected");
      }
      case PATH_AMBIGUOUS -> {
        start(s -> {});
        answer = server.raw("POST", "/orders/.", "{}", key);
      }
      case KEY_REUSED -> {
        start(s -> {});
        assertThat(server.raw("POST", "/orders", "{\"qty\":1}", key).status()).isEqualTo(201);
        answer = server.raw("POST", "/orders", "{\"qty\":2}", key);
      }
      case IN_PROGRESS -> {
        start(s -> {});
        var first = java.util.concurrent.CompletableFuture.supplyAsync(() -> server.post("/slow", k, "{}"));
        assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        answer = server.raw("POST", "/slow", "{}", key);
        shop.gate.tryEmitEmpty();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
      }
      case STORE_UNAVAILABLE -> {
        HikariDataSource pool = h2Pool();
        IdempotencyStore store = JdbiIdempotencyStore.builder(pool).createSchema(true).build();
        start(s -> {}, store, ExchangeClientScopeResolver.principal());
        pool.close();
        answer = server.raw("POST", "/orders", "{}", key);
      }
      default -> throw new AssertionError("no way to provoke " + problem);
    }
    assertProblem(answer, problem);
    boolean firstRan = problem == Problem.KEY_REUSED || problem == Problem.IN_PROGRESS;
    assertThat(shop.totalExecutions()).isEqualTo(firstRan ? 1 : 0);
  }

  private static void assertProblem(RawHttp.Answer answer, Problem problem) throws Exception {
    URI type = URI.create("https://github.com/idempotent-io/idempotent/blob/main/docs/PROBLEMS.md#" + problem.code());
    assertThat(answer.status()).isEqualTo(problem.status());
    assertThat(answer.values("Content-Type")).containsExactly(ProblemResponses.MEDIA_TYPE);
    assertThat(answer.values("Cache-Control")).containsExactly("no-store");
    assertThat(answer.values("Link")).containsExactly("<" + type + ">; rel=\"describedby\"");
    boolean retryLater = problem == Problem.IN_PROGRESS || problem == Problem.STORE_UNAVAILABLE;
    assertThat(answer.values("Retry-After")).isEqualTo(retryLater ? List.of("1") : List.of());
    assertThat(answer.values("X-Frame-Options")).containsExactly("DENY");

    JsonNode body = JSON.readTree(answer.body());
    List<String> fields = new ArrayList<>();
    body.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("type", "title", "status", "detail", "code");
    assertThat(body.get("type").asText()).isEqualTo(type.toString());
    assertThat(body.get("title").asText()).isEqualTo(problem.title);
    assertThat(body.get("status").asInt()).isEqualTo(problem.status());
    assertThat(body.get("detail").asText()).isNotBlank();
    assertThat(body.get("code").asText()).isEqualTo(problem.code());
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  /**
   * The application behind the filter, as functional routes: each handler counts its executions (when it is
   * subscribed, which is when it runs).
   */
  static final class Shop {
    static final String USER_HEADER = "X-User";
    static final byte[] BINARY = binary();

    final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    final AtomicInteger completions = new AtomicInteger();
    final CountDownLatch slowStarted = new CountDownLatch(1);
    final CountDownLatch delayedStarted = new CountDownLatch(1);
    final Sinks.Empty<Void> gate = Sinks.empty();
    /** How long {@code /sleepy} takes: long enough for a burst of duplicates to overlap it. */
    Duration sleepy = Duration.ofMillis(300);

    int executions(String path) {
      AtomicInteger n = executions.get(path);
      return n == null ? 0 : n.get();
    }

    int totalExecutions() {
      return executions.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    private int count(ServerRequest request) {
      return executions.computeIfAbsent(request.path(), p -> new AtomicInteger()).incrementAndGet();
    }

    private static byte[] binary() {
      byte[] bytes = new byte[512];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) (i * 7);
      }
      return bytes;
    }

    static byte[] big() {
      return "0123456789".repeat(500).getBytes(StandardCharsets.US_ASCII);
    }

    RouterFunction<ServerResponse> routes() {
      return RouterFunctions.route()
          .POST("/orders", this::order)
          .PUT("/orders", this::order)
          .GET("/orders", r -> ServerResponse.ok().bodyValue("listing"))
          .POST("/echo", r -> {
            count(r);
            return r.bodyToMono(String.class).defaultIfEmpty("").flatMap(body -> ServerResponse.ok()
                .bodyValue(body + " key=" + r.attribute(IdempotencyWebFilter.KEY_ATTRIBUTE).orElse("none")));
          })
          .POST("/form", r -> {
            count(r);
            return r.formData().flatMap(form -> ServerResponse.ok().bodyValue(form.toString()));
          })
          .POST("/upload", r -> {
            int n = count(r);
            return r.multipartData().flatMap(parts -> {
              org.springframework.http.codec.multipart.Part note = parts.getFirst("note");
              org.springframework.http.codec.multipart.FilePart file =
                  (org.springframework.http.codec.multipart.FilePart) parts.getFirst("file");
              return Mono.zip(
                  org.springframework.core.io.buffer.DataBufferUtils.join(note.content())
                      .map(b -> b.toString(StandardCharsets.UTF_8)),
                  org.springframework.core.io.buffer.DataBufferUtils.join(file.content())
                      .map(b -> b.toString(StandardCharsets.UTF_8)))
                  .flatMap(t -> ServerResponse.status(HttpStatus.CREATED).bodyValue("note=" + t.getT1() + " file="
                      + file.filename() + ":" + t.getT2() + " #" + n + " " + UUID.randomUUID()));
            });
          })
          .POST("/binary", r -> {
            count(r);
            return ServerResponse.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).bodyValue(BINARY);
          })
          .POST("/flaky", r -> count(r) == 1
              ? ServerResponse.status(500).bodyValue("database hiccup")
              : order(r, false))
          .POST("/boom", r -> count(r) == 1
              ? Mono.defer(() -> {
                r.exchange().getResponse().getHeaders().set("Location", "/orders/half");
                return Mono.error(new IllegalStateException("half-way"));
              })
              : order(r, false))
          .POST("/declined", r -> {
            int n = count(r);
            return ServerResponse.status(402).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"declined\":true,\"attempt\":" + n + "}");
          })
          .POST("/accepted", r -> {
            count(r);
            return ServerResponse.accepted().build();
          })
          .POST("/big", r -> {
            count(r);
            return ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).body(BodyInserters.fromDataBuffers(
                Flux.range(0, 5).map(i -> r.exchange().getResponse().bufferFactory()
                    .wrap("0123456789".repeat(100).getBytes(StandardCharsets.US_ASCII)))));
          })
          .POST("/big-at-once", r -> {
            count(r);
            return ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).bodyValue(big());
          })
          .POST("/events", r -> {
            count(r);
            return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(BodyInserters.fromServerSentEvents(
                Flux.just("one", "two").map(s -> ServerSentEvent.builder(s).build())));
          })
          .POST("/slow", r -> {
            count(r);
            slowStarted.countDown();
            return gate.asMono().then(order(r, false));
          })
          .POST("/sleepy", r -> {
            count(r);
            return Mono.delay(sleepy).then(order(r, false));
          })
          .POST("/delayed", r -> {
            count(r);
            delayedStarted.countDown();
            return Mono.delay(Duration.ofSeconds(2)).then(order(r, false)).doOnSuccess(x -> completions.incrementAndGet());
          })
          .build()
          .and(RouterFunctions.route()
              .POST("/sold-out", r -> {
                count(r);
                return Mono.error(new IllegalArgumentException("sold out"));
              })
              .onError(IllegalArgumentException.class, (e, r) -> ServerResponse.status(HttpStatus.CONFLICT)
                  .bodyValue(e.getMessage() + " " + UUID.randomUUID()))
              .build());
    }

    private Mono<ServerResponse> order(ServerRequest r) {
      return order(r, true);
    }

    private Mono<ServerResponse> order(ServerRequest r, boolean counted) {
      int n = counted ? count(r) : executions(r.path());
      String user = r.headers().firstHeader(USER_HEADER);
      return r.bodyToMono(String.class).defaultIfEmpty("").flatMap(body -> ServerResponse.status(HttpStatus.CREATED)
          .contentType(MediaType.APPLICATION_JSON)
          .header("Location", "/orders/" + (1000 + n))
          .header("ETag", "\"v" + n + "\"")
          .header("X-Trace", UUID.randomUUID().toString())
          .cookie(ResponseCookie.from("session", "s" + n).build())
          .bodyValue("{\"order\":" + (1000 + n) + ",\"user\":\"" + user + "\",\"note\":\"café ☕\",\"nonce\":\""
              + UUID.randomUUID() + "\"}"));
    }
  }

  /** A filter in front of the idempotency filter: a security header, and the user named by a header as principal. */
  static WebFilter front() {
    return (exchange, chain) -> {
      exchange.getResponse().getHeaders().set("X-Frame-Options", "DENY");
      String user = exchange.getRequest().getHeaders().getFirst(Shop.USER_HEADER);
      if (user == null) {
        return chain.filter(exchange);
      }
      java.security.Principal principal = () -> user;
      return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    };
  }

  /** A Reactor Netty server on an ephemeral port of 127.0.0.1 with the routes behind the filters. */
  static final class Server implements AutoCloseable {
    private final DisposableServer server;

    private Server(DisposableServer server) {
      this.server = server;
    }

    /** {@code routes} behind {@link #front()} and {@code filter}. */
    static Server start(RouterFunction<ServerResponse> routes, WebFilter filter) {
      return start(routes, filter, UnaryOperator.identity());
    }

    /** As {@link #start(RouterFunction, WebFilter)}, the Reactor Netty server set up by {@code server} too. */
    static Server start(RouterFunction<ServerResponse> routes, WebFilter filter, UnaryOperator<HttpServer> server) {
      var handler = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes))
          .filter(front(), filter)
          .build();
      return new Server(server.apply(HttpServer.create().host("127.0.0.1").port(0))
          .handle(new ReactorHttpHandlerAdapter(handler)).bindNow(Duration.ofSeconds(10)));
    }

    int port() {
      return server.port();
    }

    @Override
    public void close() {
      server.disposeNow(Duration.ofSeconds(10));
    }

    HttpResponse<byte[]> post(String path, String key, String body, String... headers) {
      return send("POST", path, key, body, "application/json", headers);
    }

    HttpResponse<byte[]> send(String method, String path, String key, String body, String contentType,
        String... headers) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
          .timeout(Duration.ofSeconds(30))
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
      if (contentType != null) {
        b.header("Content-Type", contentType);
      }
      if (key != null) {
        b.header("Idempotency-Key", IdempotencyKeyHeader.format(key));
      }
      for (int i = 0; i < headers.length; i += 2) {
        b.header(headers[i], headers[i + 1]);
      }
      try {
        return Http.CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    /** A request written as it is given, for paths and headers {@code HttpClient} would not send. */
    RawHttp.Answer raw(String method, String path, String body, String... headerLines) throws IOException {
      List<String> lines = new ArrayList<>(List.of(headerLines));
      if (lines.stream().noneMatch(l -> l.startsWith("Content-Type"))) {
        lines.add("Content-Type: application/json");
      }
      return RawHttp.send(port(), RawHttp.head(method, path, lines.toArray(String[]::new)),
          body.getBytes(StandardCharsets.UTF_8));
    }

    /** A POST whose body is sent in chunks, without a declared length. */
    RawHttp.Answer rawChunked(String path, String body, String... headerLines) throws IOException {
      try (Socket socket = new Socket("127.0.0.1", port())) {
        socket.setSoTimeout(10_000);
        StringBuilder request = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n");
        for (String line : headerLines) {
          request.append(line).append("\r\n");
        }
        request.append("\r\n");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += 16) {
          int n = Math.min(16, bytes.length - i);
          request.append(Integer.toHexString(n)).append("\r\n")
              .append(new String(bytes, i, n, StandardCharsets.ISO_8859_1)).append("\r\n");
        }
        request.append("0\r\n\r\n");
        socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return parse(socket.getInputStream().readAllBytes());
      }
    }

    /** A response read off the wire (a chunked body de-chunked). */
    private static RawHttp.Answer parse(byte[] raw) {
      String text = new String(raw, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      String[] lines = text.substring(0, end).split("\r\n");
      List<String> headers = List.of(lines).subList(1, lines.length);
      String body = text.substring(end + 4);
      if (headers.stream().anyMatch(h -> h.toLowerCase(java.util.Locale.ROOT).startsWith("transfer-encoding:"))) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        for (int size; (size = Integer.parseInt(body.substring(i, body.indexOf("\r\n", i)).trim(), 16)) > 0; ) {
          int start = body.indexOf("\r\n", i) + 2;
          out.append(body, start, start + size);
          i = start + size + 2;
        }
        body = out.toString();
      }
      return new RawHttp.Answer(Integer.parseInt(lines[0].split(" ")[1]), headers,
          new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }

    static boolean replayed(HttpResponse<?> r) {
      return r.headers().firstValue("Idempotent-Replayed").orElse("").equals("true");
    }

    /** Sends until the answer is not a 409 (the key is released a moment after the client went away). */
    static HttpResponse<byte[]> untilNot409(java.util.function.Supplier<HttpResponse<byte[]>> send)
        throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      HttpResponse<byte[]> r = send.get();
      while (r.statusCode() == 409 && System.nanoTime() < deadline) {
        Thread.sleep(50);
        r = send.get();
      }
      return r;
    }
  }
}
