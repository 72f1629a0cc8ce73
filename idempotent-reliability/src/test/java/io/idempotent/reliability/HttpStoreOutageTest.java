package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.http.IdempotencyKeyHeader;
import io.idempotent.http.KeyRequirement;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A payments endpoint on Jetty behind {@link IdempotencyFilter}, its store on PostgreSQL behind a
 * {@link FaultProxy}, its pool with HikariCP's defaults (a connection waited for 30 s, no read timeout):
 * the store lost between claim and completion for less than the lease, and the store unreachable. The
 * handler's effect (a row written on a connection that does not go through the proxy) is counted.
 */
class HttpStoreOutageTest {

  private static final Ledger LEDGER = new Ledger("rel_http_ledger");
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The endpoint: writes its effect at once, then works for {@code workMillis} and answers 201. */
  private static final class Payments extends HttpServlet {
    final Jdbi ledger;
    final String run;
    final long workMillis;
    final AtomicInteger executions = new AtomicInteger();

    Payments(Jdbi ledger, String run, long workMillis) {
      this.ledger = ledger;
      this.run = run;
      this.workMillis = workMillis;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String key = (String) req.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
      int n = executions.incrementAndGet();
      ledger.useHandle(h -> LEDGER.append(h, run, key, "request-" + n));
      Calls.sleepQuietly(workMillis);
      resp.setStatus(201);
      resp.setContentType("application/json");
      resp.getWriter().write("{\"payment\":\"" + key + "-" + n + "\"}");
    }
  }

  /** The ledger, on a connection that does not go through the proxy. */
  private static Jdbi ledger(HikariDataSource direct) {
    Jdbi jdbi = Jdbi.create(direct);
    LEDGER.createTable(jdbi);
    return jdbi;
  }

  /** The table store on {@code pool} and the filter before {@code payments}, on Jetty. */
  private static Server serve(HikariDataSource pool, Payments payments) throws Exception {
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool).table(Database.TABLE).createSchema(true).build();
    return start(Idempotency.create(IdempotencyConfig.builder().store(store).build()), payments);
  }

  /** Jetty on an ephemeral port with the filter in front of {@code app} at /payments. */
  private static Server start(Idempotency idempotency, HttpServlet app) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    HttpIdempotencySettings settings = HttpIdempotencySettings.builder().idempotency(idempotency)
        .route(KeyRequirement.REQUIRED, "/payments", "POST").build();
    context.addFilter(new FilterHolder(new IdempotencyFilter(settings)), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(app), "/payments");
    server.setHandler(context);
    server.start();
    return server;
  }

  private static HttpResponse<String> pay(Server server, String key) {
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
        .timeout(Duration.ofSeconds(90))
        .header("Idempotency-Key", IdempotencyKeyHeader.format(key))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"19.99\"}"))
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

  private static boolean pause() {
    Calls.sleepQuietly(200);
    return true;
  }

  private static boolean replayed(HttpResponse<?> r) {
    return r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).orElse("").equals("true");
  }

  @org.junit.jupiter.api.Test
  void storeSilentBetweenClaimAndCompletion_forLessThanTheLease_theAnswerIsNotHeld_andTheRetryReplaysIt()
      throws Exception {
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         HikariDataSource pool = ProxiedPostgres.recommendedPool(proxy, "http-blip");
         HikariDataSource ledgerPool = Database.POSTGRES.newPool(2, "http-ledger")) {
      Jdbi direct = ledger(ledgerPool);
      String run = Calls.newRun();
      Payments payments = new Payments(direct, run, 2_000);
      Server server = serve(pool, payments);
      try {
        String key = run + ":p1";
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> pay(server, key));
        Thread.sleep(1_000);
        proxy.silence(); // the store's database is lost 1 s into the 2 s request
        HttpResponse<String> answered = first.get();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(answered.statusCode()).isEqualTo(201);
        assertThat(took).as("the answer waits for the store at most the pool's 5 s and one check of a connection")
            .isLessThan(Duration.ofSeconds(2 + 5 + 5 + 2));
        proxy.pass(); // back after about 6 s, well inside the 30 s lease

        HttpResponse<String> retried;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do { // 409 while the outcome is on its way, 503 while the pool replaces its lost connections
          retried = pay(server, key);
        } while (retried.statusCode() != 201 && System.nanoTime() < deadline && pause());
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed(retried)).as("the retry replays the recorded answer").isTrue();
        assertThat(retried.body()).isEqualTo(answered.body());
        Map<String, Integer> effects = LEDGER.rowsPerKey(direct, run);
        Figures.of("HttpStoreOutageTest.silentBetweenClaimAndCompletion")
            .set("threads", 1).set("keys", 1).set("executions", payments.executions.get())
            .set("faults", proxy.faults()).set("duplicated", effects.getOrDefault(key, 0) - 1)
            .set("answerMillis", took.toMillis())
            .report();
        assertThat(effects).as("one payment").isEqualTo(Map.of(key, 1));
      } finally {
        server.stop();
      }
    }
  }

  @ParameterizedTest(name = "store {0}")
  @ValueSource(strings = {"silent", "refusing"})
  void storeUnreachable_theFirstRequestWaitsAtMostItsBound_thenNewAndRecordedKeysAlikeGet503AtOnce(String fault)
      throws Exception {
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         // refusing: HikariCP's own defaults (it would wait 30 s); silent: the recommended 5 s, since HikariCP
         // checks dead idle connections on the waiting thread, which no interrupt ends
         HikariDataSource pool = fault.equals("silent") ? ProxiedPostgres.recommendedPool(proxy, "http-down-" + fault)
             : ProxiedPostgres.defaultPool(proxy, "http-down-" + fault);
         HikariDataSource ledgerPool = Database.POSTGRES.newPool(2, "http-ledger")) {
      Jdbi direct = ledger(ledgerPool);
      String run = Calls.newRun();
      Payments payments = new Payments(direct, run, 0);
      Server server = serve(pool, payments);
      try {
        String recorded = run + ":recorded";
        String fresh = run + ":new";
        assertThat(pay(server, recorded).statusCode()).isEqualTo(201);
        Thread.sleep(600); // past HikariCP's window in which an idle connection is handed out unchecked
        if (fault.equals("silent")) {
          proxy.silence();
        } else {
          proxy.refuseNew();
          proxy.cutAll();
        }
        // the first request finds out: it waits for the pool at most the store's operation timeout, or, on a
        // silent server, as long as the pool checks its dead idle connections on the caller's thread (up to
        // its connection timeout, and one more check)
        Duration bound = fault.equals("silent") ? Duration.ofSeconds(12) : Duration.ofSeconds(8);
        long start = System.nanoTime();
        HttpResponse<String> first = pay(server, recorded);
        Duration firstTook = Duration.ofNanos(System.nanoTime() - start);
        assertThat(first.statusCode()).isEqualTo(503);
        assertThat(first.body()).contains("idempotency-store-unavailable");
        assertThat(firstTook).as("the first request's 503").isLessThan(bound);
        Duration slowestLater = Duration.ZERO;
        for (String key : new String[] {fresh, recorded, fresh}) {
          start = System.nanoTime();
          HttpResponse<String> r = pay(server, key);
          Duration took = Duration.ofNanos(System.nanoTime() - start);
          slowestLater = took.compareTo(slowestLater) > 0 ? took : slowestLater;
          assertThat(r.statusCode()).as(key).isEqualTo(503);
          assertThat(r.body()).contains("idempotency-store-unavailable");
          assertThat(took).as("after the first, every request, new or recorded, is answered at once")
              .isLessThan(Duration.ofMillis(900));
        }
        assertThat(payments.executions).as("nothing ran without its store").hasValue(1);
        proxy.pass();
        HttpResponse<String> again;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do {
          again = pay(server, recorded);
        } while (again.statusCode() == 503 && System.nanoTime() < deadline && pause());
        assertThat(replayed(again)).isTrue();
        assertThat(pay(server, fresh).statusCode()).isEqualTo(201);
        Map<String, Integer> effects = LEDGER.rowsPerKey(direct, run);
        Figures.of("HttpStoreOutageTest.unreachable[" + fault + "]")
            .set("threads", 1).set("keys", 2).set("duplicatesSent", 4).set("executions", payments.executions.get())
            .set("faults", proxy.faults()).set("duplicated", effects.values().stream().mapToInt(n -> n - 1).sum())
            .set("first503Millis", firstTook.toMillis()).set("slowestLater503Millis", slowestLater.toMillis())
            .report();
        assertThat(effects).isEqualTo(Map.of(recorded, 1, fresh, 1));
      } finally {
        server.stop();
      }
    }
  }
}
