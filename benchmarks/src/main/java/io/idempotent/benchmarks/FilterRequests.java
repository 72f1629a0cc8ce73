package io.idempotent.benchmarks;

import io.idempotent.http.IdempotencyFilter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * The requests of {@link HttpFilterBenchmark} and {@link WebFilterBenchmark}: the same order with the same
 * headers, sent by one reused {@link HttpClient} over HTTP/1.1, and the counts each benchmark mode must end
 * with (a mismatch fails the run).
 */
final class FilterRequests {

  static final String ORDER = "{\"sku\":\"chair-oak-42\",\"quantity\":2,\"customer\":\"c-1042\",\"note\":null}";

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String label;
  private long calls;
  private long replayed;

  /** @param label the store and mode, for the messages */
  FilterRequests(String label) {
    this.label = label;
  }

  /** Posts the order with {@code key}; every answer must be 201. */
  String send(URI uri, String key) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", "\"" + key + "\"")
        .POST(HttpRequest.BodyPublishers.ofString(ORDER))
        .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException(label + ": " + response.statusCode() + " " + response.body());
    }
    if (response.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isPresent()) {
      replayed++;
    }
    calls++;
    return response.body();
  }

  /** The request recorded in setup for the replay: it ran once and was not a replay; counting starts after it. */
  void recordedOnce(long filteredRuns) {
    if (replayed != 0 || filteredRuns != 1) {
      throw new IllegalStateException(label + ": the first request with the replay key did not run once");
    }
    calls = 0;
  }

  /**
   * Fails unless {@code bare} never reached the endpoint through the filter and got no replay,
   * {@code filterFirst} ran it once per request and got no replay, and {@code filterReplay} ran it once in
   * all and every later answer was a replay.
   */
  void check(String mode, long filtered, long unfiltered) {
    boolean ok = switch (mode) {
      case "bare" -> calls > 0 && filtered == 0 && unfiltered == calls && replayed == 0;
      case "filterFirst" -> calls > 0 && filtered == calls && unfiltered == 0 && replayed == 0;
      case "filterReplay" -> calls > 0 && filtered == 1 && unfiltered == 0 && replayed == calls;
      default -> false;
    };
    if (!ok) {
      throw new IllegalStateException(label + ": " + calls + " requests, " + replayed + " replayed, the endpoint"
          + " ran " + filtered + " times through the filter and " + unfiltered + " times without it");
    }
  }
}
