package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.ProblemResponses.Problem;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import jakarta.servlet.MultipartConfigElement;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every refusal of the filter, provoked over the wire: an RFC 9457 body with a documented type, title,
 * status, detail and code, and a link to the type's documentation.
 */
class HttpProblemTest {

  private static final URI DEFAULT_TYPES =
      URI.create("https://github.com/idempotent-io/idempotent/blob/main/docs/PROBLEMS.md#");

  @TempDir
  Path uploads;

  private final ShopServlet shop = new ShopServlet();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private JettyServer server;

  @AfterEach
  void stop() throws Exception {
    shop.gate.countDown();
    if (server != null) {
      server.close();
    }
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Problem.class)
  void refusal_ofEachKind_isAProblemWithADocumentedTypeAndADescribedByLink(Problem problem) throws Exception {
    RawHttp.Answer answer = provoke(problem, s -> {});

    assertProblem(answer, problem, URI.create(DEFAULT_TYPES + problem.code()));
    // the first request of a reused key, and the one still running, ran; the refused request never did
    boolean firstRan = problem == Problem.KEY_REUSED || problem == Problem.IN_PROGRESS;
    assertThat(shop.totalExecutions()).isEqualTo(firstRan ? 1 : 0);
  }

  @Test
  void refusal_withProblemTypesOfTheApisOwn_namesThoseTypesAndLinksThem() throws Exception {
    URI types = URI.create("https://api.example.com/problems/");
    RawHttp.Answer answer = provoke(Problem.KEY_MISSING, s -> s.problemTypes(types));

    assertProblem(answer, Problem.KEY_MISSING, URI.create("https://api.example.com/problems/idempotency-key-missing"));
  }

  @Test
  void problemTypes_notAnAbsoluteUriEndingInSlashOrHash_isRefused() {
    for (String base : List.of("/problems/", "https://api.example.com/problems", "urn:problems:")) {
      assertThatThrownBy(() -> HttpIdempotencySettings.builder().problemTypes(URI.create(base)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute URI ending in '/' or '#'");
    }
    assertThat(HttpIdempotencySettings.builder().build().problemTypes()).isEqualTo(DEFAULT_TYPES);
  }

  @Test
  void defaultTypes_eachNameAHeadingOfTheProblemsPage() throws Exception {
    Path page = Path.of("..", "docs", "PROBLEMS.md");
    List<String> headings = Files.readAllLines(page, StandardCharsets.UTF_8).stream()
        .filter(line -> line.startsWith("### ")).map(line -> line.substring(4).trim()).toList();
    List<String> codes = new ArrayList<>();
    for (Problem p : Problem.values()) {
      codes.add(p.code());
    }
    assertThat(headings).containsExactlyInAnyOrderElementsOf(codes);
    String text = Files.readString(page, StandardCharsets.UTF_8);
    for (Problem p : Problem.values()) {
      assertThat(text).as(p.code()).contains("### " + p.code() + "\n\n**" + p.status() + " " + p.title + "**");
    }
  }

  private static void assertProblem(RawHttp.Answer answer, Problem problem, URI type) throws Exception {
    assertThat(answer.status()).isEqualTo(problem.status());
    assertThat(answer.values("Content-Type")).containsExactly(ProblemResponses.MEDIA_TYPE);
    assertThat(answer.values("Cache-Control")).containsExactly("no-store");
    assertThat(answer.values("Link")).containsExactly("<" + type + ">; rel=\"describedby\"");
    boolean retryLater = problem == Problem.IN_PROGRESS || problem == Problem.STORE_UNAVAILABLE;
    assertThat(answer.values("Retry-After")).isEqualTo(retryLater ? List.of("1") : List.of());

    JsonNode body = new ObjectMapper().readTree(answer.body());
    List<String> fields = new ArrayList<>();
    body.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("type", "title", "status", "detail", "code");
    assertThat(body.get("type").asText()).isEqualTo(type.toString());
    assertThat(body.get("title").asText()).isEqualTo(problem.title).isNotBlank();
    assertThat(body.get("status").isInt()).isTrue();
    assertThat(body.get("status").asInt()).isEqualTo(problem.status());
    assertThat(body.get("detail").asText()).isNotBlank();
    assertThat(body.get("code").asText()).isEqualTo(problem.code());
  }

  /** Starts a server set up for {@code problem} and sends what the filter refuses with it. */
  private RawHttp.Answer provoke(Problem problem, Consumer<HttpIdempotencySettings.Builder> settings)
      throws Exception {
    String key = "Idempotency-Key: \"" + UUID.randomUUID() + "\"";
    switch (problem) {
      case KEY_MISSING -> {
        start(settings, storeThatWorks(), null);
        return post("/orders", "{}", "Content-Type: application/json");
      }
      case KEY_MALFORMED -> {
        start(settings, storeThatWorks(), null);
        return post("/orders", "{}", "Idempotency-Key: \"unterminated");
      }
      case BODY_TOO_LARGE -> {
        start(settings.andThen(s -> s.maxRequestBodyBytes(8)), storeThatWorks(), null);
        return post("/orders", "{\"qty\":12}", key);
      }
      case BODY_MALFORMED -> {
        MultipartConfigElement multipart =
            new MultipartConfigElement(Files.createDirectories(uploads.resolve("parts")).toString());
        start(settings, storeThatWorks(), multipart);
        return post("/orders", "--other\r\nnot a part at all", key,
            "Content-Type: multipart/form-data; boundary=expected");
      }
      case PATH_AMBIGUOUS -> {
        start(settings, storeThatWorks(), null); // Jetty maps /orders/. to /orders/, the Servlet rules to /orders
        return post("/orders/.", "{}", key);
      }
      case KEY_REUSED -> {
        start(settings, storeThatWorks(), null);
        assertThat(post("/orders", "{\"qty\":1}", key).status()).isEqualTo(201);
        return post("/orders", "{\"qty\":2}", key);
      }
      case IN_PROGRESS -> {
        start(settings, storeThatWorks(), null);
        CompletableFuture<RawHttp.Answer> first = CompletableFuture.supplyAsync(() -> {
          try {
            return post("/slow", "{}", key);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
        assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        RawHttp.Answer duplicate = post("/slow", "{}", key);
        shop.gate.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).status()).isEqualTo(201);
        return duplicate;
      }
      case STORE_UNAVAILABLE -> {
        start(settings, storeNoOneListensTo(), null);
        return post("/orders", "{}", key);
      }
      default -> throw new AssertionError("no way to provoke " + problem);
    }
  }

  private void start(Consumer<HttpIdempotencySettings.Builder> settings, IdempotencyStore store,
      MultipartConfigElement multipart) throws Exception {
    resources.add(store);
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder().idempotency(idempotency);
    settings.accept(b);
    server = JettyServer.start(shop, multipart, new IdempotencyFilter(b.build()));
  }

  private static IdempotencyStore storeThatWorks() {
    return CaffeineIdempotencyStore.builder().build();
  }

  /** A Redis store on a port of this machine that nothing listens on: each call fails to connect. */
  private static IdempotencyStore storeNoOneListensTo() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return RedisIdempotencyStore.builder().host("127.0.0.1").port(port).build();
  }

  private RawHttp.Answer post(String path, String body, String... headerLines) throws Exception {
    return RawHttp.send(server.port(), RawHttp.head("POST", path, headerLines), body.getBytes(StandardCharsets.UTF_8));
  }
}
