package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.WebFilterTest.Server;
import io.idempotent.http.WebFilterTest.Shop;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import jakarta.servlet.MultipartConfigElement;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A servlet application and a WebFlux application in front of one store, with the same settings, read a
 * request alike: a request answered by one replays from the other, its key scoped to the same client and its
 * body (a multipart form by its parts) fingerprinted the same way.
 */
class WebFilterServletParityTest {

  @TempDir
  Path uploads;

  private final ShopServlet servletShop = new ShopServlet();
  private final Shop webShop = new Shop();
  private final IdempotencyStore store = CaffeineIdempotencyStore.builder().build();
  private JettyServer jetty;
  private Server netty;

  @AfterEach
  void stop() throws Exception {
    servletShop.gate.countDown();
    if (jetty != null) {
      jetty.close();
    }
    if (netty != null) {
      netty.close();
    }
    store.close();
  }

  private void start() throws Exception {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    HttpIdempotencySettings settings = HttpIdempotencySettings.builder().idempotency(idempotency)
        .clientScope(ClientScopeResolver.header("X-Api-Key")).build();
    MultipartConfigElement multipart =
        new MultipartConfigElement(Files.createDirectories(uploads.resolve("parts")).toString());
    jetty = JettyServer.start(servletShop, multipart, new IdempotencyFilter(settings));
    netty = Server.start(webShop.routes(), new IdempotencyWebFilter(settings,
        ExchangeClientScopeResolver.header("X-Api-Key")));
  }

  @Test
  void aRequestAnsweredByTheServletApplicationReplaysFromTheWebFluxOne() throws Exception {
    start();
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = new Http(jetty).post("/orders", key, "{\"qty\":1}", "X-Api-Key", "sk_a");
    HttpResponse<byte[]> retry = netty.post("/orders", key, "{\"qty\":1}", "X-Api-Key", "sk_a");
    HttpResponse<byte[]> otherClient = netty.post("/orders", key, "{\"qty\":1}", "X-Api-Key", "sk_b");
    HttpResponse<byte[]> otherBody = netty.post("/orders", key, "{\"qty\":2}", "X-Api-Key", "sk_a");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(WebFilterTest.text(retry)).isEqualTo(first.body());
    assertThat(retry.headers().allValues("Location")).isEqualTo(first.headers().allValues("Location"));
    assertThat(Server.replayed(otherClient)).isFalse();
    assertThat(otherBody.statusCode()).isEqualTo(422);
    assertThat(servletShop.executions("/orders")).isEqualTo(1);
    assertThat(webShop.executions("/orders")).isEqualTo(1); // the other client's
  }

  @Test
  void aMultipartFormAnsweredByTheServletApplicationReplaysFromTheWebFluxOneWithAnotherBoundary() throws Exception {
    start();
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = new Http(jetty).send("POST", "/orders", key,
        WebFilterTest.multipart("jetty-boundary", "birthday", "card.txt", "Happy birthday!"),
        "multipart/form-data; boundary=jetty-boundary");
    HttpResponse<byte[]> retry = netty.send("POST", "/orders", key,
        WebFilterTest.multipart("netty-boundary-2", "birthday", "card.txt", "Happy birthday!"),
        "multipart/form-data; boundary=netty-boundary-2");
    HttpResponse<byte[]> otherFile = netty.send("POST", "/orders", key,
        WebFilterTest.multipart("netty-boundary-3", "birthday", "card.txt", "Happy anniversary!"),
        "multipart/form-data; boundary=netty-boundary-3");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Server.replayed(retry)).isTrue();
    assertThat(WebFilterTest.text(retry)).isEqualTo(first.body());
    assertThat(otherFile.statusCode()).isEqualTo(422);
    assertThat(webShop.totalExecutions()).isZero();
  }
}
