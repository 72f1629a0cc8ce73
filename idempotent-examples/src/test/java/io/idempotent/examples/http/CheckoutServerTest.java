package io.idempotent.examples.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.DemoOptions;
import io.idempotent.examples.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The demo's HTTP mode on a free port: the three answers the README shows. */
class CheckoutServerTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Test
  void theSamePostTwiceReplaysAnotherBodyIs422AndNoKeyIs400() throws Exception {
    DemoOptions options = DemoOptions.parse(List.of("--http", "--port", "0"), new Properties());
    assertThat(options.http()).isTrue();
    try (DemoEnvironment env = DemoEnvironment.open(TestDatabases.freshH2());
        CheckoutServer server = CheckoutServer.start(env, options.port())) {
      String key = "\"" + UUID.randomUUID() + "\"";
      String order = "{\"card\":\"4242 4242 4242 4242\",\"amountCents\":1999}";

      HttpResponse<String> first = post(server, key, order);
      HttpResponse<String> second = post(server, key, order);
      assertThat(first.statusCode()).isEqualTo(201);
      assertThat(first.body()).contains("\"amountCents\":1999", "\"receiptId\"");
      assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(second.statusCode()).isEqualTo(201);
      assertThat(second.body()).isEqualTo(first.body());
      assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));

      HttpResponse<String> other = post(server, key, "{\"card\":\"4242 4242 4242 4242\",\"amountCents\":5000}");
      assertThat(other.statusCode()).isEqualTo(422);
      assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");

      HttpResponse<String> noKey = post(server, null, order);
      assertThat(noKey.statusCode()).isEqualTo(400);
      assertThat(noKey.body()).contains("idempotency-key-missing");

      assertThat(server.executions()).isEqualTo(1);
    }
  }

  private static HttpResponse<String> post(CheckoutServer server, String key, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/orders"))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
        .header(CheckoutServer.USER_HEADER, "alice").POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
