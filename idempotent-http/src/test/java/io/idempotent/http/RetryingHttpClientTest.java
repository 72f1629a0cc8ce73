package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The retrying client against a real server, on a fake clock: nothing sleeps on the wall clock. */
class RetryingHttpClientTest {

  /** Answers each request with the next scripted status, noting the key each attempt carried. */
  static final class ScriptedServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    final Deque<Integer> statuses = new ArrayDeque<>();
    final List<String> keys = new CopyOnWriteArrayList<>();
    volatile long delayMillis;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      keys.add(req.getHeader("Idempotency-Key"));
      if (delayMillis > 0 && keys.size() == 1) {
        try {
          Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Integer status;
      synchronized (statuses) {
        status = statuses.isEmpty() ? 201 : statuses.poll();
      }
      resp.setStatus(status);
      resp.getWriter().write("answer " + status);
    }
  }

  /** A clock that moves only when the client sleeps. */
  static final class FakeTime implements RetryingHttpClient.Sleeper {
    Instant now = Instant.parse("2025-06-02T10:00:00Z");
    final List<Duration> sleeps = new ArrayList<>();

    Clock clock() {
      return new Clock() {
        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now;
        }
      };
    }

    @Override
    public void sleep(Duration d) {
      sleeps.add(d);
      now = now.plus(d);
    }
  }

  /** Always the same fraction of the bound. */
  static RandomGenerator fixed(double fraction) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public double nextDouble() {
        return fraction;
      }
    };
  }

  private final ScriptedServlet servlet = new ScriptedServlet();
  private final FakeTime time = new FakeTime();
  private JettyServer server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private RetryingHttpClient client(RetryPolicy policy) {
    return RetryingHttpClient.builder(Http.CLIENT).policy(policy).clock(time.clock()).sleeper(time)
        .random(fixed(0.5)).keys(() -> "op-7f3a").build();
  }

  private HttpRequest post(String path) {
    return HttpRequest.newBuilder(server.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1999}"))
        .timeout(Duration.ofSeconds(10)).build();
  }

  @Test
  void retries409And5xxWithOneKeyAndFullJitterBackoff() throws Exception {
    server = JettyServer.start(servlet);
    servlet.statuses.addAll(List.of(503, 409, 500));
    RetriedResponse<String> r = client(new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(1),
        Duration.ofSeconds(30))).send(post("/charges"), HttpResponse.BodyHandlers.ofString());

    assertThat(r.status()).isEqualTo(201);
    assertThat(r.attempts()).isEqualTo(4);
    assertThat(r.replayed()).isFalse();
    assertThat(r.idempotencyKey()).isEqualTo("op-7f3a");
    assertThat(servlet.keys).containsExactly("\"op-7f3a\"", "\"op-7f3a\"", "\"op-7f3a\"", "\"op-7f3a\"");
    // half of 200 ms, 400 ms, 800 ms
    assertThat(time.sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
  }

  @Test
  void neverRetriesAnotherClientError() throws Exception {
    server = JettyServer.start(servlet);
    for (int status : new int[] {400, 404, 422, 429}) {
      servlet.statuses.add(status);
      RetriedResponse<String> r = client(RetryPolicy.DEFAULT).send(post("/charges"), HttpResponse.BodyHandlers.ofString());
      assertThat(r.status()).isEqualTo(status);
      assertThat(r.attempts()).isEqualTo(1);
    }
    assertThat(time.sleeps).isEmpty();
  }

  @Test
  void stopsAtTheAttemptLimitWithTheLastAnswer() throws Exception {
    server = JettyServer.start(servlet);
    servlet.statuses.addAll(List.of(503, 503, 503, 503, 503));
    RetriedResponse<String> r = client(new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1),
        Duration.ofSeconds(30))).send(post("/charges"), HttpResponse.BodyHandlers.ofString());
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.attempts()).isEqualTo(3);
    assertThat(servlet.keys).hasSize(3);
  }

  @Test
  void stopsAtTheDeadlineRatherThanSleepPastIt() throws Exception {
    server = JettyServer.start(servlet);
    servlet.statuses.addAll(List.of(503, 503, 503, 503, 503, 503, 503, 503));
    // waits of 0.5 s, 1 s, 2 s, 4 s: the fourth would end past the 5 s deadline
    RetriedResponse<String> r = client(new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofSeconds(8),
        Duration.ofSeconds(5))).send(post("/charges"), HttpResponse.BodyHandlers.ofString());
    assertThat(r.status()).isEqualTo(503);
    assertThat(time.sleeps).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(r.attempts()).isEqualTo(4);
  }

  @Test
  void retriesWhenTheServerCannotBeReachedAndSaysHowOftenItTried() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    HttpRequest request = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + closedPort + "/charges"))
        .POST(HttpRequest.BodyPublishers.noBody()).build();
    assertThatThrownBy(() -> client(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50),
        Duration.ofSeconds(30))).send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.attempts()).isEqualTo(3);
          assertThat(e.idempotencyKey()).isEqualTo("op-7f3a");
          assertThat(e.getCause()).isInstanceOf(java.net.ConnectException.class);
          assertThat(e.getSuppressed()).hasSize(2);
        });
    assertThat(time.sleeps).hasSize(2);
  }

  @Test
  void retriesATimeout() throws Exception {
    server = JettyServer.start(servlet);
    servlet.delayMillis = 2_000;
    HttpRequest request = HttpRequest.newBuilder(server.uri("/charges")).POST(HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofMillis(300)).build();
    RetriedResponse<String> r = client(RetryPolicy.DEFAULT).send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(r.status()).isEqualTo(201);
    assertThat(r.attempts()).isEqualTo(2);
  }

  @Test
  void aFinalAnswerThatIsTheRecordedResponseOfAnEarlierAttemptIsMarkedReplayed() throws Exception {
    ShopServlet shop = new ShopServlet();
    server = JettyServer.start(shop, new IdempotencyFilter(HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build())
            .build())).build()));
    // an earlier attempt with the key is still running (its answer will be lost to the client)
    CompletableFuture<HttpResponse<String>> lost =
        CompletableFuture.supplyAsync(() -> new Http(server).post("/slow", "op-7f3a", "{\"amount\":1999}"));
    assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    RetryingHttpClient client = RetryingHttpClient.builder(Http.CLIENT).clock(time.clock())
        .sleeper(d -> {
          time.sleep(d);
          shop.gate.countDown(); // the first attempt finishes while this one waits
          lost.join();
        })
        .random(fixed(0.5)).build();
    RetriedResponse<String> r = client.send(HttpRequest.newBuilder(server.uri("/slow"))
        .header("Content-Type", "application/json").header("Idempotency-Key", "\"op-7f3a\"")
        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1999}")).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(r.attempts()).isEqualTo(2);
    assertThat(r.replayed()).isTrue();
    assertThat(r.idempotencyKey()).isEqualTo("op-7f3a");
    assertThat(r.body()).isEqualTo(lost.join().body());
    assertThat(shop.executions("/slow")).isEqualTo(1);
  }

  @Test
  void backoffBoundsDoubleUpToTheCap() {
    RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(250), Duration.ofSeconds(2), Duration.ofMinutes(1));
    assertThat(List.of(p.backoffBound(1), p.backoffBound(2), p.backoffBound(3), p.backoffBound(4), p.backoffBound(9)))
        .containsExactly(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(2));
  }
}
