package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A WebFlux application has no Servlet API: the WebFlux filter runs, records and replays on a class path
 * without {@code jakarta.servlet}, the settings' defaults included.
 */
class WebFilterWithoutServletTest {

  @Test
  void theWebFilterRunsWithoutTheServletApi() throws Exception {
    List<URL> urls = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      Path path = Path.of(entry);
      if (holdsServletApi(path)) {
        dropped.add(path.getFileName().toString());
      } else {
        urls.add(path.toUri().toURL());
      }
    }
    assertThat(dropped).anyMatch(name -> name.startsWith("jakarta.servlet-api"));
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("jakarta.servlet.http.HttpServletRequest", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) Class.forName(Run.class.getName(), true, loader)
          .getDeclaredConstructor().newInstance();
      assertThat(run.call()).isEqualTo("201 false, 201 true, 400, 1 execution");
    }
  }

  private static boolean holdsServletApi(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      return Files.isDirectory(path.resolve("jakarta/servlet"));
    }
    if (!Files.isRegularFile(path)) {
      return false;
    }
    try (ZipFile zip = new ZipFile(path.toFile())) {
      return zip.getEntry("jakarta/servlet/Filter.class") != null;
    }
  }

  /** Starts a server with the filter on its default settings, and sends a request, its retry and one without a key. */
  public static final class Run implements Callable<String> {
    @Override
    public String call() throws Exception {
      AtomicInteger executions = new AtomicInteger();
      var routes = RouterFunctions.route().POST("/orders", r -> ServerResponse.status(HttpStatus.CREATED)
          .bodyValue("order " + executions.incrementAndGet())).build();
      HttpIdempotencySettings settings = HttpIdempotencySettings.builder()
          .idempotency(Idempotency.create(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build())
              .build()))
          .build();
      var handler = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes))
          .filter(new IdempotencyWebFilter(settings)).build();
      DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
          .handle(new ReactorHttpHandlerAdapter(handler)).bindNow(Duration.ofSeconds(10));
      try {
        HttpClient client = HttpClient.newHttpClient();
        URI uri = URI.create("http://127.0.0.1:" + server.port() + "/orders");
        HttpRequest request = HttpRequest.newBuilder(uri).header("Idempotency-Key", "\"k-1\"")
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        HttpResponse<String> first = client.send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> retry = client.send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> keyless = client.send(HttpRequest.newBuilder(uri)
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        return first.statusCode() + " " + first.headers().firstValue("Idempotent-Replayed").isPresent() + ", "
            + retry.statusCode() + " " + retry.headers().firstValue("Idempotent-Replayed").orElse("") + ", "
            + keyless.statusCode() + ", " + executions.get() + " execution";
      } finally {
        server.disposeNow(Duration.ofSeconds(10));
      }
    }
  }
}
