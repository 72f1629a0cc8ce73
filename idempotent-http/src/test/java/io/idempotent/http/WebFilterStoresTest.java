package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.OnInProgress;
import io.idempotent.http.WebFilterTest.Server;
import io.idempotent.http.WebFilterTest.Shop;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.testkit.ThreadRecordingStore;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The WebFlux filter's key answers on every store (the JDBI store on H2 and PostgreSQL, Redis, Caffeine), in a
 * real Reactor Netty server; no store call on any of them runs on a Netty event-loop thread.
 */
class WebFilterStoresTest {

  static final int DUPLICATES = 20;

  @TempDir
  Path dir;

  private final Shop shop = new Shop();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private ThreadRecordingStore store;
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

  private void start(TestStore kind, Consumer<HttpIdempotencySettings.Builder> settings) {
    TestStore.Opened opened = kind.open(dir.resolve("store").toString());
    resources.add(opened);
    store = new ThreadRecordingStore(opened.store());
    HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(store).build()))
        .ttl(Duration.ofMinutes(10));
    settings.accept(b);
    server = Server.start(shop.routes(), new IdempotencyWebFilter(b.build()));
  }

  /** Every store call so far ran off the event loop, and there were some. */
  private void assertNoStoreCallOnTheEventLoop() {
    assertThat(store.threads()).isNotEmpty();
    assertThat(store.threads()).noneMatch(name -> name.startsWith("reactor-http"));
  }

  private static String key() {
    return UUID.randomUUID().toString();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aRetryReplaysTheFirstResponseByteForByte(TestStore kind) {
    start(kind, s -> {});
    String key = key();
    HttpResponse<byte[]> first = server.post("/orders", key, "{\"sku\":\"book\"}");
    HttpResponse<byte[]> retry = server.post("/orders", key, "{\"sku\":\"book\"}");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(first)).isFalse();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().allValues("Location")).isEqualTo(first.headers().allValues("Location"));
    assertThat(shop.executions("/orders")).isEqualTo(1);
    assertNoStoreCallOnTheEventLoop();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aReusedKeyWithAnotherBodyIsRefusedWith422(TestStore kind) {
    start(kind, s -> {});
    String key = key();
    assertThat(server.post("/orders", key, "{\"qty\":1}").statusCode()).isEqualTo(201);
    HttpResponse<byte[]> reused = server.post("/orders", key, "{\"qty\":2}");
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(WebFilterTest.text(reused)).contains("idempotency-key-reused");
    assertThat(shop.executions("/orders")).isEqualTo(1);
    assertNoStoreCallOnTheEventLoop();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aServerErrorAndAnErrorReleaseTheKeySoARetryRuns(TestStore kind) {
    start(kind, s -> {});
    String flaky = key();
    assertThat(server.post("/flaky", flaky, "{}").statusCode()).isEqualTo(500);
    HttpResponse<byte[]> retried = server.post("/flaky", flaky, "{}");
    assertThat(retried.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retried)).isFalse();

    String boom = key();
    assertThat(server.post("/boom", boom, "{}").statusCode()).isEqualTo(500);
    HttpResponse<byte[]> again = server.post("/boom", boom, "{}");
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(again)).isFalse();
    assertThat(shop.executions("/flaky")).isEqualTo(2);
    assertThat(shop.executions("/boom")).isEqualTo(2);
    assertNoStoreCallOnTheEventLoop();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aClientThatGoesAway_leavesTheHandlerToFinish_andItsRetryGetsTheRecordedResponse(TestStore kind)
      throws Exception {
    start(kind, s -> {});
    String key = key();
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST /delayed HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Idempotency-Key: \"" + key + "\"\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(shop.delayedStarted.await(10, TimeUnit.SECONDS)).isTrue();
    }
    HttpResponse<byte[]> retry = Server.untilNot409(() -> server.post("/delayed", key, "{}"));
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(shop.executions("/delayed")).isEqualTo(1);
    assertThat(shop.completions.get()).isEqualTo(1);
    assertNoStoreCallOnTheEventLoop();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aBurstOfDuplicatesRunsOnceAndTheOthersGet409(TestStore kind) throws Exception {
    start(kind, s -> {});
    String key = key();
    List<HttpResponse<byte[]>> answers = fire(key, DUPLICATES);

    assertThat(shop.executions("/sleepy")).isEqualTo(1);
    List<HttpResponse<byte[]>> ran = answers.stream().filter(r -> r.statusCode() == 201 && !Server.replayed(r)).toList();
    List<HttpResponse<byte[]>> conflicts = answers.stream().filter(r -> r.statusCode() == 409).toList();
    List<HttpResponse<byte[]>> replays = answers.stream().filter(Server::replayed).toList();
    assertThat(ran).hasSize(1);
    assertThat(conflicts).isNotEmpty(); // the handler takes 300 ms: the copies did overlap it
    assertThat(ran.size() + conflicts.size() + replays.size()).isEqualTo(DUPLICATES);
    assertThat(conflicts).allSatisfy(r -> assertThat(WebFilterTest.text(r)).contains("idempotency-key-in-progress"));
    assertThat(replays).allSatisfy(r -> assertThat(r.body()).isEqualTo(ran.get(0).body()));

    HttpResponse<byte[]> late = server.post("/sleepy", key, "{\"sku\":\"lamp\"}");
    assertThat(Server.replayed(late)).isTrue();
    assertThat(late.body()).isEqualTo(ran.get(0).body());
    assertNoStoreCallOnTheEventLoop();
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void aBurstOfDuplicatesThatWaitAllGetTheOneResponse(TestStore kind) throws Exception {
    start(kind, s -> s.onInProgress(OnInProgress.WAIT).waitTimeout(Duration.ofSeconds(20)));
    String key = key();
    List<HttpResponse<byte[]>> answers = fire(key, DUPLICATES);

    assertThat(shop.executions("/sleepy")).isEqualTo(1);
    assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(201));
    assertThat(answers.stream().map(r -> new String(r.body(), StandardCharsets.UTF_8)).distinct()).hasSize(1);
    assertThat(answers.stream().filter(r -> !Server.replayed(r))).hasSize(1);
    assertNoStoreCallOnTheEventLoop();
  }

  private List<HttpResponse<byte[]>> fire(String key, int copies) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(pool.submit(() -> {
          go.await();
          return server.post("/sleepy", key, "{\"sku\":\"lamp\"}");
        }));
      }
      go.countDown();
      List<HttpResponse<byte[]>> answers = new ArrayList<>();
      for (Future<HttpResponse<byte[]>> f : futures) {
        answers.add(f.get(60, TimeUnit.SECONDS));
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }
}
