package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Other spellings of protected paths, sent as raw request lines (an HTTP client would normalise them first)
 * to Jetty 12 and Tomcat 11, each with its default settings and with ambiguous paths let through. Wherever
 * the container routes a spelling to a protected servlet, the filter protects it as that servlet's path:
 * 400 without a key, one execution per key, and a retry through another spelling replays. A spelling the
 * container refuses never reaches the filter; one it lets through that the Servlet 6 rules call ambiguous,
 * or that it normalises otherwise, the filter refuses. A spelling the container maps to another path runs
 * untouched there, as any request to that path.
 */
class HttpPathVariantTest {

  /** The containers, in the order of the expectation columns below. */
  enum Container {
    JETTY("Jetty 12"),
    TOMCAT("Tomcat 11"),
    JETTY_AMBIGUOUS("Jetty 12 allowing ambiguous paths"),
    TOMCAT_AMBIGUOUS("Tomcat 11 decoding %2F and %5C"),
    JETTY_UNDECODED("Jetty 12 allowing ambiguous paths but not decoding them");

    final String label;

    Container(String label) {
      this.label = label;
    }

    ServletServer start(WebApp... apps) throws Exception {
      return switch (this) {
        case JETTY -> JettyServer.start(JettyServer.AmbiguousPaths.REFUSED, apps);
        case TOMCAT -> TomcatServer.start(false, apps);
        case JETTY_AMBIGUOUS -> JettyServer.start(JettyServer.AmbiguousPaths.DECODED, apps);
        case TOMCAT_AMBIGUOUS -> TomcatServer.start(true, apps);
        case JETTY_UNDECODED -> JettyServer.start(JettyServer.AmbiguousPaths.UNDECODED, apps);
      };
    }
  }

  /** What a spelling gets on one container: the letters of the expectation columns. */
  enum Outcome {
    P("reaches %s and runs once per key (400 without one)"),
    E("reaches %s as another path and runs untouched"),
    C("is refused by the container"),
    A("is refused by the filter as ambiguous");

    final String sentence;

    Outcome(String sentence) {
      this.sentence = sentence;
    }
  }

  /**
   * A spelling of a path: what the request line says, what is odd about it, the servlet the container maps
   * it to (when it does), and the outcome on each container: Jetty, Tomcat, Jetty allowing ambiguous paths,
   * Tomcat decoding encoded slashes, Jetty allowing ambiguous paths but not decoding them.
   */
  record Variant(String path, String what, String servlet, String outcomes) {}

  private static final List<Variant> VARIANTS = List.of(
      // an exact mapping (/payments) in the context /shop
      new Variant("/shop/payments", "the plain path", "payments", "PPPPP"),
      new Variant("/shop/./payments", "a dot segment", "payments", "PPPPP"),
      new Variant("/shop/a/../payments", "a dot-dot segment", "payments", "PPPPP"),
      new Variant("/shop/%70ayments", "an encoded letter", "payments", "PPPPP"),
      new Variant("/shop/payments;x=1", "a path parameter", "payments", "PPPPP"),
      new Variant("/shop/payments;jsessionid=0F3A", "a session id", "payments", "PPPPP"),
      new Variant("/shop/a;x=1/../payments", "a parameter on an inner segment", "payments", "PPPPP"),
      new Variant("http://127.0.0.1/shop/payments", "the absolute form", "payments", "PPPPP"),
      new Variant("/shop/payments#top", "a fragment", "payments", "CCPCP"),
      new Variant("/shop//payments", "an empty segment", "payments", "CPAPA"),
      new Variant("/shop///payments", "two empty segments", "payments", "CPAPA"),
      new Variant("/shop/x//../payments", "an empty segment before a dot-dot", "payments", "CPAPA"),
      new Variant("/shop/payments/.", "a trailing dot segment", "payments", "APAPA"),
      new Variant("/shop/%2e/payments", "an encoded dot segment", "payments", "CAAAA"),
      new Variant("/shop/a/%2e%2e/payments", "an encoded dot-dot segment", "payments", "CAAAA"),
      new Variant("/shop/a/.%2E/payments", "a half-encoded dot-dot segment", "payments", "CAAAA"),
      new Variant("/shop/a/..;/payments", "a dot-dot segment with a parameter", "payments", "CAAAA"),
      new Variant("/shop/.;x=1/payments", "a dot segment with a parameter", "payments", "CAAAA"),
      new Variant("/shop/;x=1/payments", "an empty segment with a parameter", "payments", "CAAAA"),
      new Variant("/shop/%2Fpayments", "an encoded slash", "payments", "CCAAA"),
      new Variant("/shop/a%2F..%2Fpayments", "encoded slashes around a dot-dot", "payments", "CCAAA"),
      new Variant("/shop/a\\..\\payments", "backslashes", "payments", "CCAAA"),
      new Variant("/shop/a%5C..%5Cpayments", "encoded backslashes", "payments", "CCAAA"),
      new Variant("/shop/pay%00ments", "an encoded NUL", "payments", "CCCCC"),
      new Variant("/shop/pa%09yments", "an encoded tab", "other", "CAAAA"),
      new Variant("/shop/pay%7Fments", "an encoded DEL", "other", "CAAAA"),
      new Variant("/shop/pay%C2%85ments", "an encoded C1 control character", "other", "AAAAA"),
      new Variant("/shop/payments%C3", "a broken UTF-8 sequence", "other", "CCACA"),
      new Variant("/shop/payments%zz", "a broken percent escape", "other", "CCCCC"),
      new Variant("/shop/Payments", "another case", "other", "EEEEE"),
      new Variant("/shop/payments/", "a trailing slash", "other", "EEEEE"),
      new Variant("/shop/payments.", "a trailing dot", "other", "EEEEE"),
      new Variant("/shop/payments%3Bx=1", "an encoded ';', which is no parameter", "other", "EEEEE"),
      // the context path spelled otherwise
      new Variant("/sh%6Fp/payments", "an encoded letter in the context path", "payments", "PPPPP"),
      new Variant("/shop;x=1/payments", "a parameter on the context path", "payments", "PPPPP"),
      new Variant("/shop/../shop/payments", "a dot-dot through the context path", "payments", "PPPPP"),
      new Variant("/shop/../payments", "a dot-dot out of the context", "root", "PPPPP"),
      // a prefix mapping (/api/*)
      new Variant("/shop/api/payments", "the plain path", "api", "PPPPP"),
      new Variant("/shop/api/./payments", "a dot segment", "api", "PPPPP"),
      new Variant("/shop/ap%69/payments", "an encoded letter in the servlet path", "api", "PPPPP"),
      new Variant("/shop/api;x=1/payments", "a parameter on the servlet path", "api", "PPPPP"),
      new Variant("/shop/api//payments", "an empty segment in the path info", "api", "CPAPA"),
      new Variant("/shop/api/pay%2Fments", "an encoded slash in the path info", "api", "CCAAA"),
      // an extension mapping (*.do)
      new Variant("/shop/checkout.do", "the plain path", "checkout", "PPPPP"),
      new Variant("/shop/checkout.do;x=1", "a path parameter", "checkout", "PPPPP"),
      new Variant("/shop/checkout%2edo", "an encoded dot before the extension", "checkout", "PPPPP"),
      new Variant("/shop/a/../checkout.do", "a dot-dot segment", "checkout", "PPPPP"),
      new Variant("/shop/checkout.DO", "the extension in another case", "other", "EEEEE"),
      // a servlet on every path (/*) in the root context: the servlet path is empty
      new Variant("/payments", "the plain path", "root", "PPPPP"),
      new Variant("/a/../payments", "a dot-dot segment", "root", "PPPPP"),
      new Variant("/%70ayments", "an encoded letter", "root", "PPPPP"),
      new Variant("/payments;jsessionid=0F3A", "a session id", "root", "PPPPP"),
      new Variant("//payments", "an empty segment", "root", "CPAPA"),
      new Variant("/payments/.", "a trailing dot segment", "root", "APAPA"),
      new Variant("/Payments", "another case", "root", "EEEEE"));

  /** The plain path of each protected servlet, where a cell's first request with a key goes. */
  private static final Map<String, String> PLAIN = Map.of(
      "payments", "/shop/payments", "api", "/shop/api/payments", "checkout", "/shop/checkout.do", "root", "/payments");

  private static final Map<Container, Deployment> DEPLOYMENTS = new EnumMap<>(Container.class);

  /**
   * Two contexts on one container. {@code /shop}: {@code payments} at {@code /payments}, {@code api} at
   * {@code /api/*}, {@code checkout} at {@code *.do}, {@code other} as the default servlet; POST on
   * {@code /payments}, {@code /api/**} and {@code /checkout.do} needs a key. The root context: {@code root}
   * at {@code /*}; POST on {@code /payments} needs a key.
   */
  static final class Deployment implements AutoCloseable {
    final List<CountingServlet> servlets = List.of(new CountingServlet("payments"), new CountingServlet("api"),
        new CountingServlet("checkout"), new CountingServlet("other"), new CountingServlet("root"));
    final ServletServer server;

    Deployment(Container container) throws Exception {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
          .store(CaffeineIdempotencyStore.builder().build()).build());
      WebApp shop = WebApp.at("/shop", filter(idempotency, s -> s.route(KeyRequirement.REQUIRED, "/payments", "POST")
              .route(KeyRequirement.REQUIRED, "/api/**", "POST")
              .route(KeyRequirement.REQUIRED, "/checkout.do", "POST")))
          .servlet("/payments", servlet("payments")).servlet("/api/*", servlet("api"))
          .servlet("*.do", servlet("checkout")).servlet("/", servlet("other"));
      WebApp root = WebApp.at("", filter(idempotency, s -> s.route(KeyRequirement.REQUIRED, "/payments", "POST")))
          .servlet("/*", servlet("root"));
      server = container.start(shop, root);
    }

    private static IdempotencyFilter filter(Idempotency idempotency, Consumer<HttpIdempotencySettings.Builder> routes) {
      HttpIdempotencySettings.Builder b = HttpIdempotencySettings.builder().idempotency(idempotency);
      routes.accept(b);
      return new IdempotencyFilter(b.build());
    }

    CountingServlet servlet(String name) {
      return servlets.stream().filter(s -> s.name.equals(name)).findFirst().orElseThrow();
    }

    /** Executions of each servlet, in the order of {@link #servlets}. */
    List<Integer> executions() {
      return servlets.stream().map(CountingServlet::executions).toList();
    }

    RawHttp.Answer post(String path, String key) throws Exception {
      List<String> headers = new ArrayList<>(List.of("Content-Type: application/json"));
      if (key != null) {
        headers.add("Idempotency-Key: \"" + key + "\"");
      }
      return RawHttp.send(server.port(), RawHttp.head("POST", path, headers.toArray(String[]::new)),
          "{\"amount\":1999}".getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      server.close();
    }
  }

  /** One spelling on one container; its name is the sentence the test shows. */
  record Cell(Container container, Variant variant, Outcome outcome) {
    @Override
    public String toString() {
      return container.label + ": POST " + variant.path() + " (" + variant.what() + ") "
          + String.format(outcome.sentence, variant.servlet());
    }
  }

  static Stream<Cell> cells() {
    return VARIANTS.stream().flatMap(v -> Stream.of(Container.values())
        .map(c -> new Cell(c, v, Outcome.valueOf(v.outcomes().substring(c.ordinal(), c.ordinal() + 1)))));
  }

  private static synchronized Deployment deployment(Container container) throws Exception {
    Deployment d = DEPLOYMENTS.get(container);
    if (d == null) {
      d = new Deployment(container);
      DEPLOYMENTS.put(container, d);
    }
    return d;
  }

  @AfterAll
  static void stopAll() throws Exception {
    for (Deployment d : DEPLOYMENTS.values()) {
      d.close();
    }
  }

  @Test
  void post_aPathTheContainerNormalisesOtherwise_isRefusedNamingBothReadings() throws Exception {
    RawHttp.Answer refused = deployment(Container.JETTY).post("/shop/payments/.", UUID.randomUUID().toString());
    assertThat(refused.body()).contains("The request path /shop/payments/. is ambiguous: the container maps it to"
        + " /shop/payments/, the Servlet rules to /shop/payments.");
  }

  @Test
  void post_aPathWithASuspiciousSequence_isRefusedNamingIt() throws Exception {
    RawHttp.Answer refused = deployment(Container.TOMCAT).post("/shop/a/..;/payments", UUID.randomUUID().toString());
    assertThat(refused.body()).contains("The request path /shop/a/..;/payments is ambiguous: it holds a dot segment"
        + " with a parameter.");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void post_spelledAnotherWay_isProtectedWhereverTheContainerRoutesIt(Cell cell) throws Exception {
    Deployment d = deployment(cell.container());
    String path = cell.variant().path();
    List<Integer> before = d.executions();
    switch (cell.outcome()) {
      case P -> {
        CountingServlet target = d.servlet(cell.variant().servlet());
        String plain = PLAIN.get(target.name);
        RawHttp.Answer noKey = d.post(path, null);
        assertThat(noKey.status()).isEqualTo(400);
        assertThat(noKey.body()).contains("\"code\":\"idempotency-key-missing\"");
        assertThat(d.executions()).isEqualTo(before);

        String key = UUID.randomUUID().toString();
        RawHttp.Answer first = d.post(plain, key);
        RawHttp.Answer retry = d.post(path, key);
        assertThat(first.status()).isEqualTo(201);
        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.values("Idempotent-Replayed")).containsExactly("true");
        assertThat(retry.body()).isEqualTo(first.body()).contains("\"servlet\":\"" + target.name + "\"");

        String other = UUID.randomUUID().toString();
        RawHttp.Answer firstThroughVariant = d.post(path, other);
        RawHttp.Answer retryThroughPlain = d.post(plain, other);
        assertThat(firstThroughVariant.values("Idempotent-Replayed")).isEmpty();
        assertThat(retryThroughPlain.values("Idempotent-Replayed")).containsExactly("true");
        assertThat(retryThroughPlain.body()).isEqualTo(firstThroughVariant.body());
        assertThat(target.executions()).isEqualTo(before.get(d.servlets.indexOf(target)) + 2); // once per key
        assertThat(d.executions().stream().mapToInt(Integer::intValue).sum())
            .isEqualTo(before.stream().mapToInt(Integer::intValue).sum() + 2);
      }
      case E -> {
        CountingServlet target = d.servlet(cell.variant().servlet());
        String key = UUID.randomUUID().toString();
        RawHttp.Answer first = d.post(path, key);
        RawHttp.Answer second = d.post(path, key);
        assertThat(first.status()).isEqualTo(201);
        assertThat(first.body()).contains("\"servlet\":\"" + target.name + "\"");
        assertThat(second.values("Idempotent-Replayed")).isEmpty();
        assertThat(second.body()).isNotEqualTo(first.body());
        assertThat(target.executions()).isEqualTo(before.get(d.servlets.indexOf(target)) + 2);
        assertThat(d.executions().stream().mapToInt(Integer::intValue).sum())
            .isEqualTo(before.stream().mapToInt(Integer::intValue).sum() + 2);
      }
      case C -> {
        RawHttp.Answer refused = d.post(path, UUID.randomUUID().toString());
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.values("Content-Type")).noneMatch(t -> t.startsWith(ProblemResponses.MEDIA_TYPE));
        assertThat(d.executions()).isEqualTo(before);
      }
      case A -> {
        for (String key : new String[] {UUID.randomUUID().toString(), null}) {
          RawHttp.Answer refused = d.post(path, key);
          assertThat(refused.status()).isEqualTo(400);
          assertThat(refused.values("Content-Type")).containsExactly(ProblemResponses.MEDIA_TYPE);
          assertThat(refused.body()).contains("\"code\":\"request-path-ambiguous\"", "is ambiguous");
        }
        assertThat(d.executions()).isEqualTo(before);
      }
    }
  }
}
