package io.idempotent.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain requests to a test server through {@link HttpClient}. */
final class Http {

  static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String base;

  Http(JettyServer server) {
    this(server.port());
  }

  /** For a server on 127.0.0.1 at {@code port} (one in another process). */
  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** POST {@code body} as JSON; {@code key} null sends no key; {@code headers} are name, value pairs. */
  HttpResponse<String> post(String path, String key, String body, String... headers) {
    return send("POST", path, key, body, "application/json", headers);
  }

  HttpResponse<String> send(String method, String path, String key, String body, String contentType,
      String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
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
      return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static boolean replayed(HttpResponse<?> r) {
    return r.headers().firstValue("Idempotent-Replayed").orElse("").equals("true");
  }
}
