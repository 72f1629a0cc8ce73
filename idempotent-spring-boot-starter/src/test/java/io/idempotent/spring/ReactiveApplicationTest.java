package io.idempotent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.http.IdempotencyWebFilter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A Spring Boot WebFlux application on Netty, with the starter's defaults and PostgreSQL: the starter
 * registers the {@code Idempotency-Key} filter, and each order is placed once.
 */
class ReactiveApplicationTest {

  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir
  Path dir;

  private HikariDataSource dataSource;
  private ConfigurableApplicationContext app;
  private String base;
  private final String table = SpringDatabase.uniqueName("idem");

  /** The application: one route whose effect is counted, slow enough for duplicates to meet it running. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Orders {
    static final AtomicInteger PLACED = new AtomicInteger();
    static volatile DataSource database;

    @Bean(destroyMethod = "") // the test's pool: closed by the test, after it drops the table
    DataSource dataSource() {
      return database;
    }

    @Bean
    RouterFunction<ServerResponse> routes() {
      return RouterFunctions.route()
          .POST("/orders", request -> request.bodyToMono(String.class)
              .delayElement(Duration.ofMillis(300))
              .flatMap(body -> ServerResponse.status(201).header("Location", "/orders/" + PLACED.incrementAndGet())
                  .bodyValue("placed " + body + " #" + PLACED.get())))
          .build();
    }
  }

  @BeforeEach
  void start() {
    dataSource = SpringDatabase.POSTGRES.open(dir);
    Orders.database = dataSource;
    Orders.PLACED.set(0);
    app = new SpringApplicationBuilder(Orders.class).web(WebApplicationType.REACTIVE)
        .properties("server.port=0", "server.address=127.0.0.1", "idempotent.http.enabled=true",
            "idempotent.jdbi.table=" + table, "idempotent.jdbi.create-schema=true")
        .run();
    base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (dataSource != null) {
      try (var c = dataSource.getConnection(); var s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      } finally {
        dataSource.close();
      }
    }
  }

  @Test
  void aBurstOfDuplicates_placesOneOrder_andARetryAfterItIsReplayedByteForByte() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      burst.add(CLIENT.sendAsync(post("k-1", "{\"sku\":\"a\"}"), HttpResponse.BodyHandlers.ofString()));
    }
    List<Integer> statuses = new ArrayList<>();
    HttpResponse<String> first = null;
    for (CompletableFuture<HttpResponse<String>> f : burst) {
      HttpResponse<String> r = f.get();
      statuses.add(r.statusCode());
      if (r.statusCode() == 201 && r.headers().firstValue(IdempotencyWebFilter.REPLAYED_HEADER).isEmpty()) {
        first = r;
      }
    }
    assertThat(Orders.PLACED).hasValue(1);
    assertThat(statuses).containsOnly(201, 409).contains(201);
    assertThat(first).isNotNull();

    HttpResponse<String> retry = CLIENT.send(post("k-1", "{\"sku\":\"a\"}"), HttpResponse.BodyHandlers.ofString());
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
    assertThat(retry.headers().firstValue(IdempotencyWebFilter.REPLAYED_HEADER)).contains("true");

    HttpResponse<String> reused = CLIENT.send(post("k-1", "{\"sku\":\"b\"}"), HttpResponse.BodyHandlers.ofString());
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(Orders.PLACED).hasValue(1);
  }

  @Test
  void aClientThatGoesAwayMidCall_leavesTheOrderToBePlaced_andItsRetryGetsTheReceipt() throws Exception {
    CompletableFuture<HttpResponse<String>> abandoned =
        CLIENT.sendAsync(post("k-2", "{\"sku\":\"c\"}"), HttpResponse.BodyHandlers.ofString());
    Thread.sleep(100); // the request is in the handler's delay
    abandoned.cancel(true);
    HttpClient other = HttpClient.newHttpClient(); // a new connection: the first one is being torn down
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    HttpResponse<String> retry;
    do {
      Thread.sleep(50);
      retry = other.send(post("k-2", "{\"sku\":\"c\"}"), HttpResponse.BodyHandlers.ofString());
    } while (retry.statusCode() == 409 && System.nanoTime() < deadline);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue(IdempotencyWebFilter.REPLAYED_HEADER)).contains("true");
    assertThat(retry.body()).isEqualTo("placed {\"sku\":\"c\"} #1");
    assertThat(Orders.PLACED).hasValue(1);
  }

  @Test
  void theStarterRegistersTheWebFilter_onlyInAReactiveApplicationThatAsks() {
    ReactiveWebApplicationContextRunner web = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));
    web.run(context -> assertThat(context).doesNotHaveBean("idempotencyWebFilter"));
    web.withPropertyValues("idempotent.http.enabled=true", "idempotent.store=caffeine").run(context -> {
      assertThat(context).hasNotFailed().hasBean("idempotencyWebFilter").doesNotHaveBean("idempotencyFilter");
    });
    // a WebFlux application has no Servlet API, so the servlet filter's class cannot load there, while the
    // WebFlux filter's can: that is not idempotent-http missing
    web.withClassLoader(new FilteredClassLoader(io.idempotent.http.IdempotencyFilter.class))
        .withPropertyValues("idempotent.http.enabled=true", "idempotent.store=caffeine")
        .run(context -> assertThat(context).hasNotFailed().hasBean("idempotencyWebFilter"));
    web.withClassLoader(new FilteredClassLoader(IdempotencyWebFilter.class))
        .withPropertyValues("idempotent.http.enabled=true", "idempotent.store=caffeine")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("io.idempotent:idempotent-http"));
  }

  private HttpRequest post(String key, String body) {
    return HttpRequest.newBuilder(URI.create(base + "/orders")).timeout(Duration.ofSeconds(30))
        .header("Idempotency-Key", "\"" + key + "\"").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
