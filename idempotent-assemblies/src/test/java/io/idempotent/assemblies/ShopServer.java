package io.idempotent.assemblies;

import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 on a localhost port: the {@code Idempotency-Key} filter with its default settings (every
 * POST needs a key; the installed configuration) in front of {@link PaymentServlet}. One for the whole suite;
 * the servlet serves the cell being walked.
 */
final class ShopServer {

  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private static Server server;
  private static URI payments;

  private ShopServer() {}

  private static synchronized URI payments() {
    if (server == null) {
      Server s = new Server();
      ServerConnector connector = new ServerConnector(s);
      connector.setHost("127.0.0.1");
      connector.setPort(0);
      s.addConnector(connector);
      ServletContextHandler context = new ServletContextHandler();
      context.setContextPath("/");
      context.addFilter(new FilterHolder(new IdempotencyFilter(HttpIdempotencySettings.builder().build())), "/*",
          EnumSet.of(DispatcherType.REQUEST));
      context.addServlet(new ServletHolder(new PaymentServlet()), "/*");
      s.setHandler(context);
      try {
        s.start();
      } catch (Exception e) {
        throw new IllegalStateException("Jetty did not start", e);
      }
      server = s;
      payments = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/payments");
    }
    return payments;
  }

  /** POSTs a payment with {@code key} as its {@code Idempotency-Key}; {@code requestId} tells the request apart. */
  static HttpResponse<String> pay(String key, String requestId) {
    HttpRequest request = HttpRequest.newBuilder(payments()).timeout(Duration.ofSeconds(30))
        .header("Idempotency-Key", "\"" + key + "\"")
        .header(PaymentServlet.REQUEST_ID, requestId)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"12.50\"}"))
        .build();
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static synchronized void stop() throws Exception {
    if (server != null) {
      server.stop();
      server = null;
    }
  }
}
