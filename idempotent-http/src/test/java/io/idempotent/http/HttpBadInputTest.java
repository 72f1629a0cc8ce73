package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Hostile and odd input, on the wire: every case gets a clear answer and nothing runs twice. */
class HttpBadInputTest {

  private final ShopServlet shop = new ShopServlet();
  private JettyServer server;
  private Http http;

  private void start(Consumer<HttpIdempotencySettings.Builder> settings) throws Exception {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(CaffeineIdempotencyStore.builder().build()).build());
    HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder().idempotency(idempotency);
    settings.accept(b);
    server = JettyServer.start(shop, new IdempotencyFilter(b.build()));
    http = new Http(server);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private RawHttp.Answer postRaw(String path, String keyLine, String body) throws Exception {
    return RawHttp.send(server.port(), RawHttp.head("POST", path, keyLine, "Content-Type: application/json"),
        body.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "\"no-closing-quote",
      "\"bad\\escape\"",
      "\"k1\";expires=60",
      "\"k1\" trailing",
      "\"\"",
      "\"   \"",
      "two words",
      "a,b",
      "\"k1\", \"k2\""})
  void aMalformedKeyIsRefusedWith400SayingWhatIsWrong(String value) throws Exception {
    start(s -> {});
    RawHttp.Answer a = postRaw("/orders", "Idempotency-Key: " + value, "{}");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.values("Content-Type")).containsExactly("application/problem+json");
    assertThat(a.body()).contains("\"status\":400", "idempotency-key-malformed", "Idempotency-Key header");
    assertThat(shop.totalExecutions()).isZero();
  }

  @Test
  void theHeaderTwiceIsRefused() throws Exception {
    start(s -> {});
    RawHttp.Answer a = RawHttp.send(server.port(),
        RawHttp.head("POST", "/orders", "Idempotency-Key: \"k1\"", "Idempotency-Key: \"k2\""), new byte[0]);
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).contains("appears 2 times");
    assertThat(shop.totalExecutions()).isZero();
  }

  @Test
  void aKeyOverTheLimitIsRefusedAndOneAtTheLimitIsAccepted() throws Exception {
    start(s -> s.maxKeyLength(64));
    String atLimit = "k".repeat(64);
    assertThat(http.post("/orders", atLimit, "{}").statusCode()).isEqualTo(201);
    HttpResponse<String> tooLong = http.post("/orders", atLimit + "k", "{}");
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body()).contains("longer than 64 characters");
    RawHttp.Answer bare = postRaw("/orders", "Idempotency-Key: " + "b".repeat(65), "{}");
    assertThat(bare.status()).isEqualTo(400);
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  @Test
  void nonAsciiBytesInTheKeyAreRefused() throws Exception {
    start(s -> {});
    byte[] head = ("POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: \"caf").getBytes(StandardCharsets.US_ASCII);
    byte[] full = new byte[head.length + 2 + 3];
    System.arraycopy(head, 0, full, 0, head.length);
    full[head.length] = (byte) 0xC3;
    full[head.length + 1] = (byte) 0xA9;
    full[head.length + 2] = '"';
    full[head.length + 3] = '\r';
    full[head.length + 4] = '\n';
    RawHttp.Answer a = RawHttp.send(server.port(), full, "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).contains("outside printable ASCII");
    assertThat(shop.totalExecutions()).isZero();
  }

  @Test
  void aBareKeyIsTheSameKeyAsItsQuotedFormUnlessStrict() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    RawHttp.Answer bare = postRaw("/orders", "Idempotency-Key: " + key, "{}");
    RawHttp.Answer quoted = postRaw("/orders", "Idempotency-Key: \"" + key + "\"", "{}");
    assertThat(bare.status()).isEqualTo(201);
    assertThat(quoted.values("Idempotent-Replayed")).containsExactly("true");
    assertThat(quoted.body()).isEqualTo(bare.body());
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  @Test
  void aStrictFilterRefusesABareKey() throws Exception {
    start(s -> s.strictKeyHeader(true));
    RawHttp.Answer bare = postRaw("/orders", "Idempotency-Key: " + UUID.randomUUID(), "{}");
    assertThat(bare.status()).isEqualTo(400);
    assertThat(bare.body()).contains("must be a quoted string");
    assertThat(shop.totalExecutions()).isZero();
  }

  @Test
  void anEmptyBodyIsARequestOfItsOwn() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = http.send("POST", "/orders", key, null, null);
    HttpResponse<String> retry = http.send("POST", "/orders", key, null, null);
    HttpResponse<String> withBody = http.send("POST", "/orders", key, "{}", null);
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(withBody.statusCode()).isEqualTo(422);
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413WhetherItsLengthIsDeclaredOrNot() throws Exception {
    start(s -> s.maxRequestBodyBytes(1000));
    String atLimit = "x".repeat(1000);
    assertThat(http.post("/orders", UUID.randomUUID().toString(), atLimit).statusCode()).isEqualTo(201);
    HttpResponse<String> declared = http.post("/orders", UUID.randomUUID().toString(), atLimit + "x");
    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("request-body-too-large", "larger than 1000 bytes");

    byte[] big = (atLimit + "yy").getBytes(StandardCharsets.UTF_8);
    HttpRequest chunked = HttpRequest.newBuilder(server.uri("/orders")).timeout(Duration.ofSeconds(10))
        .header("Idempotency-Key", "\"" + UUID.randomUUID() + "\"")
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build();
    HttpResponse<String> undeclared = Http.CLIENT.send(chunked, HttpResponse.BodyHandlers.ofString());
    assertThat(undeclared.statusCode()).isEqualTo(413);
    assertThat(shop.executions("/orders")).isEqualTo(1);
  }

  @Test
  void aHandlerThatThrowsAfterWritingPartOfItsResponseSendsNoneOfItAndReleasesTheKey() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    HttpResponse<String> failed = http.post("/throws", key, "{}");
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.body()).doesNotContain("partial-output");
    assertThat(failed.headers().firstValue("Location")).isEmpty();
    assertThat(Http.replayed(failed)).isFalse();
    assertThat(shop.executions("/throws")).isEqualTo(1);

    HttpResponse<String> retry = http.post("/throws", key, "{}");
    assertThat(retry.statusCode()).isEqualTo(500);
    assertThat(Http.replayed(retry)).isFalse();
    assertThat(shop.executions("/throws")).isEqualTo(2); // once per request: the failed one left nothing to replay
  }

  @Test
  void aHeaderWithLineBreaksSetByTheHandlerNeverSplitsIntoTwoHeadersAndReplaysAsFirstSent() throws Exception {
    start(s -> {});
    String line = "Idempotency-Key: \"" + UUID.randomUUID() + "\"";
    RawHttp.Answer first = postRaw("/crlf", line, "{}");
    RawHttp.Answer replay = postRaw("/crlf", line, "{}");
    assertThat(first.values("Set-Cookie")).isEmpty();
    assertThat(replay.values("Set-Cookie")).isEmpty();
    assertThat(replay.values("Idempotent-Replayed")).containsExactly("true");
    assertThat(replay.status()).isEqualTo(first.status());
    assertThat(replay.values("Location")).isEqualTo(first.values("Location"));
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(shop.executions("/crlf")).isEqualTo(1);
  }

  @Test
  void aStreamedResponseIsSentWholeAndNotRecorded() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = http.post("/streamed", key, "{}");
    HttpResponse<String> second = http.post("/streamed", key, "{}");
    assertThat(first.body()).isEqualTo("first line\nsecond line, execution 1\n");
    assertThat(second.body()).isEqualTo("first line\nsecond line, execution 2\n");
    assertThat(Http.replayed(second)).isFalse();
  }

  @Test
  void aResponseFlushedOnlyAfterItsWholeBodyIsRecordedAndReplayed() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = http.post("/flushed-at-end", key, "{}");
    HttpResponse<String> second = http.post("/flushed-at-end", key, "{}");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).isEqualTo("{\"execution\":1}");
    assertThat(Http.replayed(second)).isTrue();
    assertThat(second.statusCode()).isEqualTo(201);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
    assertThat(shop.executions("/flushed-at-end")).isEqualTo(1);
  }

  @Test
  void aResponseOverTheRecordingLimitIsSentWholeAndNotRecorded() throws Exception {
    start(s -> s.maxRecordedBodyBytes(2048));
    shop.bigBodyBytes = 8192;
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> first = Http.CLIENT.send(HttpRequest.newBuilder(server.uri("/big"))
        .header("Idempotency-Key", "\"" + key + "\"").POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    HttpResponse<byte[]> second = Http.CLIENT.send(HttpRequest.newBuilder(server.uri("/big"))
        .header("Idempotency-Key", "\"" + key + "\"").POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(first.body()).hasSize(8192);
    assertThat(first.body()[8191]).isEqualTo((byte) ('a' + 7));
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(Http.replayed(second)).isFalse();
    assertThat(shop.executions("/big")).isEqualTo(2);
  }

  @Test
  void anAsynchronousResponseIsSentWholeAndNotRecorded() throws Exception {
    start(s -> {});
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = http.post("/async", key, "{}");
    HttpResponse<String> second = http.post("/async", key, "{}");
    assertThat(first.statusCode()).isEqualTo(202);
    assertThat(first.body()).isEqualTo("accepted asynchronously, execution 1");
    assertThat(second.body()).isEqualTo("accepted asynchronously, execution 2");
    assertThat(Http.replayed(second)).isFalse();
  }
}
