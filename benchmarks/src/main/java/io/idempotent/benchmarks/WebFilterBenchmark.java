package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyWebFilter;
import io.idempotent.http.KeyRequirement;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The cost of {@link IdempotencyWebFilter} per HTTP request, as {@link HttpFilterBenchmark} measures the
 * servlet filter's: one reactive endpoint (the same order as {@link OrdersEndpoint} takes and answers) on
 * Reactor Netty, on two ephemeral localhost ports, one without the filter ({@code bare}) and one behind it,
 * called over HTTP/1.1 by one reused {@link HttpClient} with the same headers and body each time.
 * {@code filterFirst} sends a new key per request (claim, run, record); {@code filterReplay} the same key
 * and body every time (the recorded response, replayed). The store is Caffeine or the JDBI table store on
 * PostgreSQL, called off the event loop.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class WebFilterBenchmark {

  /** The store behind the filter. */
  public enum Store {
    caffeine, postgres
  }

  @Param
  public Store store;

  private final Keys keys = new Keys();
  private final Endpoint bareEndpoint = new Endpoint();
  private final Endpoint filteredEndpoint = new Endpoint();
  private SqlRig rig;
  private IdempotencyStore opened;
  private DisposableServer bareServer;
  private DisposableServer filteredServer;
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
    IdempotencyWebFilter filter = new IdempotencyWebFilter(HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder().store(opened).build()))
        .route(KeyRequirement.REQUIRED, "/orders", "POST")
        .build());
    bareServer = start(WebHttpHandlerBuilder.webHandler(bareEndpoint).build());
    filteredServer = start(WebHttpHandlerBuilder.webHandler(filteredEndpoint).filter(filter).build());
    bareUri = URI.create("http://127.0.0.1:" + bareServer.port() + "/orders");
    filteredUri = URI.create("http://127.0.0.1:" + filteredServer.port() + "/orders");
    replayKey = keys.replay();
    String name = params.getBenchmark();
    mode = name.substring(name.lastIndexOf('.') + 1);
    requests = new FilterRequests(store + " " + mode);
    if (mode.equals("filterReplay")) {
      // the first request with the replay key, recorded before the measurement; every later one is a replay
      requests.send(filteredUri, replayKey);
      requests.recordedOnce(filteredEndpoint.runs.get());
    }
  }

  private static DisposableServer start(HttpHandler handler) {
    return HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
  }

  @TearDown
  public void tearDown() throws Exception {
    try {
      check();
    } finally {
      bareServer.disposeNow();
      filteredServer.disposeNow();
      opened.close();
      if (rig != null) {
        rig.close();
      }
    }
  }

  /** The counts each mode must end with; a mismatch fails the run. */
  private void check() {
    requests.check(mode, filteredEndpoint.runs.get(), bareEndpoint.runs.get());
  }

  /** The endpoint alone, on the server without the filter; the request carries the same key and body. */
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

  /**
   * {@link OrdersEndpoint}'s order, answered reactively: reads the JSON body, picks two fields, numbers the
   * order and answers 201 with a {@code Location} and a JSON body. Counts its runs.
   */
  static final class Endpoint implements WebHandler {
    final AtomicLong runs = new AtomicLong();
    private final AtomicLong orderNumbers = new AtomicLong(100_000);

    @Override
    public Mono<Void> handle(ServerWebExchange exchange) {
      runs.incrementAndGet();
      return DataBufferUtils.join(exchange.getRequest().getBody()).flatMap(buffer -> {
        String order = buffer.toString(StandardCharsets.UTF_8);
        DataBufferUtils.release(buffer);
        String sku = OrdersEndpoint.field(order, "sku");
        int quantity = Integer.parseInt(OrdersEndpoint.field(order, "quantity"));
        long number = orderNumbers.incrementAndGet();
        var response = exchange.getResponse();
        response.setStatusCode(HttpStatus.CREATED);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().set("Location", "/orders/" + number);
        byte[] body = ("{\"order\":" + number + ",\"sku\":\"" + sku + "\",\"quantity\":" + quantity
            + ",\"status\":\"accepted\"}").getBytes(StandardCharsets.UTF_8);
        DataBuffer out = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(out));
      });
    }
  }
}
