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

  @Param
  public Store store;

  private final Keys keys = new Keys();
  private final OrdersEndpoint endpoint = new OrdersEndpoint();
  private SqlRig rig;
  private IdempotencyStore opened;
  private Server server;
  private URI bareUri;
  private URI filteredUri;
  private String replayKey;
  private String mode;
  private FilterRequests requests;

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
    replayKey = keys.replay();
    String name = params.getBenchmark();
    mode = name.substring(name.lastIndexOf('.') + 1);
    requests = new FilterRequests(store + " " + mode);
    if (mode.equals("filterReplay")) {
      // the first request with the replay key, recorded before the measurement; every later one is a replay
      requests.send(filteredUri, replayKey);
      requests.recordedOnce(endpoint.filtered.get());
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
    requests.check(mode, endpoint.filtered.get(), endpoint.unfiltered.get());
  }

  /** The endpoint without the filter; the request carries the same key header and body as a replay. */
  @Benchmark
  public String bare() throws IOException, InterruptedException {
    return requests.send(bareUri, replayKey);
  }

  /** Through the filter, a new key per request: claim, run the endpoint, record its response. */
  @Benchmark
  public String filterFirst() throws IOException, InterruptedException {
    return requests.send(filteredUri, keys.fresh());
  }

  /** Through the filter, the same key and body as the request recorded in setup: the replay. */
  @Benchmark
  public String filterReplay() throws IOException, InterruptedException {
    return requests.send(filteredUri, replayKey);
  }
}
