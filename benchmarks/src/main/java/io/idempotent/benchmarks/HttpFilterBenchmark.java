package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.http.KeyRequirement;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The cost of {@link IdempotencyFilter} per HTTP request: one endpoint ({@link OrdersEndpoint}) in an
 * embedded Jetty 12 on an ephemeral localhost port, called over HTTP/1.1 by one reused
 * {@link HttpClient} in the same JVM, with the same headers (the {@code Idempotency-Key} included) and
 * body each time. {@code bare} reaches the endpoint on a path the filter is not mapped to;
 * {@code filterFirst} goes through the filter with a new key per request (claim, run, record);
 * {@code filterReplay} sends the same key and body every time (the recorded response, replayed). The
 * store is Caffeine or the JDBI table store on PostgreSQL.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class HttpFilterBenchmark {

  /** The store behind the filter. */
  public enum Store {
    caffeine, postgres
  }

  static final String ORDER = "{\"sku\":\"chair-oak-42\",\"quantity\":2,\"customer\":\"c-1042\",\"note\":null}";

  @Param
  public Store store;

  private final Keys keys = new Keys();
  private final OrdersEndpoint endpoint = new OrdersEndpoint();
  private SqlRig rig;
  private IdempotencyStore opened;
  private Server server;
  private HttpClient client;
  private URI bareUri;
  private URI filteredUri;
  private String replayKey;
  private String mode;
  private long calls;
  private long replayed;

  @Setup
  public void setUp(BenchmarkParams params) throws Exception {
    opened = switch (store) {
      case caffeine -> CaffeineIdempotencyStore.builder().build();
      case postgres -> {
        rig = new SqlRig(BenchDatabase.postgres, 4);
        yield rig.storeBuilder().build();
      }
    };
    IdempotencyFilter filter = new IdempotencyFilter(HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(opened).build()))
        .route(KeyRequirement.REQUIRED, "/idem/**", "POST")
        .build());
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addFilter(new FilterHolder(filter), "/idem/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(endpoint), "/*");
    server.setHandler(context);
    server.start();
    bareUri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/bare/orders");
    filteredUri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/idem/orders");
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    replayKey = keys.replay();
    String name = params.getBenchmark();
    mode = name.substring(name.lastIndexOf('.') + 1);
    if (mode.equals("filterReplay")) {
      // the first request with the replay key, recorded before the measurement; every later one is a replay
      send(filteredUri, replayKey);
      if (replayed != 0 || endpoint.filtered.get() != 1) {
        throw new IllegalStateException(store + ": the first request with the replay key did not run once");
      }
      calls = 0;
    }
  }

  @TearDown
  public void tearDown() throws Exception {
    try {
      check();
    } finally {
      server.stop();
      opened.close();
      if (rig != null) {
        rig.close();
      }
    }
  }

  /** The counts each mode must end with; a mismatch fails the run. */
  private void check() {
    long filtered = endpoint.filtered.get();
    long unfiltered = endpoint.unfiltered.get();
    String counts = store + " " + mode + ": " + calls + " requests, " + replayed + " replayed, the endpoint ran "
        + filtered + " times through the filter and " + unfiltered + " times without it";
    boolean ok = switch (mode) {
      case "bare" -> calls > 0 && filtered == 0 && unfiltered == calls && replayed == 0;
      case "filterFirst" -> calls > 0 && filtered == calls && unfiltered == 0 && replayed == 0;
      case "filterReplay" -> calls > 0 && filtered == 1 && unfiltered == 0 && replayed == calls;
      default -> false;
    };
    if (!ok) {
      throw new IllegalStateException(counts);
    }
  }

  private String send(URI uri, String key) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", "\"" + key + "\"")
        .POST(HttpRequest.BodyPublishers.ofString(ORDER))
        .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException(store + " " + mode + ": " + response.statusCode() + " " + response.body());
    }
    if (response.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isPresent()) {
      replayed++;
    }
    calls++;
    return response.body();
  }

  /** The endpoint without the filter; the request carries the same key header and body as a replay. */
  @Benchmark
  public String bare() throws IOException, InterruptedException {
    return send(bareUri, replayKey);
  }

  /** Through the filter, a new key per request: claim, run the endpoint, record its response. */
  @Benchmark
  public String filterFirst() throws IOException, InterruptedException {
    return send(filteredUri, keys.fresh());
  }

  /** Through the filter, the same key and body as the request recorded in setup: the replay. */
  @Benchmark
  public String filterReplay() throws IOException, InterruptedException {
    return send(filteredUri, replayKey);
  }
}
