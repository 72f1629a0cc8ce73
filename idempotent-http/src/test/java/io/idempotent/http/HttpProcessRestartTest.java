package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server is a JVM of its own, killed with SIGKILL and started again on the same H2 file. A retry
 * after a kill that came once the response was sent is a replay; a retry after a kill in the middle of
 * the handler runs it, once the dead process's lease has run out, and exactly one order is completed.
 */
class HttpProcessRestartTest {

  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final String ORDER = "{\"sku\":\"chair\",\"quantity\":2,\"note\":null}";

  @TempDir
  Path dir;

  @Test
  void killedAfterTheResponse_theRetryOnANewProcessIsAReplay() throws Exception {
    Path h2 = dir.resolve("shop");
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first;
    long firstPid;
    try (ShopServerProcess server = ShopServerProcess.start(h2, LEASE, dir.resolve("release"), "first")) {
      firstPid = server.pid();
      first = new Http(server.port()).post("/orders", key, ORDER);
      server.kill();
    }
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(first)).isFalse();
    assertThat(first.body()).contains("\"pid\":" + firstPid);
    assertThat(records(h2)).as("the response was recorded in the file before the kill").containsExactly("COMPLETED");

    HttpResponse<String> retry;
    HttpResponse<String> other;
    try (ShopServerProcess server = ShopServerProcess.start(h2, LEASE, dir.resolve("release"), "second")) {
      Http http = new Http(server.port());
      retry = http.post("/orders", key, ORDER);
      other = http.post("/orders", key, "{\"sku\":\"table\",\"quantity\":1,\"note\":null}");
      server.stop();
    }
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(retry)).as("the retry is a replay").isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().allValues("Location")).isEqualTo(first.headers().allValues("Location"));
    assertThat(other.statusCode()).as("the key is still bound to the first request").isEqualTo(422);
    assertThat(orders(h2)).as("one order, completed by the first process").containsExactly(key + " " + firstPid);
  }

  @Test
  void killedWhileTheHandlerRuns_theRetryRunsItOnceTheLeaseRanOut() throws Exception {
    Path h2 = dir.resolve("shop");
    Path release = dir.resolve("release");
    String key = UUID.randomUUID().toString();
    long killedAt;
    try (ShopServerProcess server = ShopServerProcess.start(h2, LEASE, release, "first")) {
      Thread request = new Thread(() -> new Http(server.port()).post("/held-orders", key, ORDER));
      List<Throwable> failures = new ArrayList<>();
      request.setUncaughtExceptionHandler((t, e) -> failures.add(e));
      request.setDaemon(true);
      request.start();
      server.awaitLine(ShopServerMain.HANDLER_STARTED, Duration.ofSeconds(10));
      Thread.sleep(LEASE.toMillis()); // the claim is written and has been renewed while the handler waits
      server.kill();
      killedAt = System.nanoTime();
      request.join(10_000);
      assertThat(failures).as("the client lost its connection: the first request got no answer").hasSize(1);
    }
    assertThat(orders(h2)).as("the killed handler completed nothing").isEmpty();
    assertThat(records(h2)).as("the dead process's claim is in the file").containsExactly("IN_PROGRESS");
    Files.createFile(release);

    List<Integer> statuses = new ArrayList<>();
    HttpResponse<String> retry;
    HttpResponse<String> again;
    long secondPid;
    try (ShopServerProcess server = ShopServerProcess.start(h2, LEASE, release, "second")) {
      secondPid = server.pid();
      Http http = new Http(server.port());
      do {
        retry = http.post("/held-orders", key, ORDER);
        statuses.add(retry.statusCode());
        if (retry.statusCode() == 409) {
          Thread.sleep(100);
        }
      } while (retry.statusCode() == 409 && System.nanoTime() - killedAt < Duration.ofSeconds(10).toNanos());
      again = http.post("/held-orders", key, ORDER);
      server.stop();
    }
    long retriedAfterMillis = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
    assertThat(statuses).as("409 while the dead process's lease lasts, then the handler runs")
        .last().isEqualTo(201);
    assertThat(statuses.subList(0, statuses.size() - 1)).allSatisfy(s -> assertThat(s).isEqualTo(409));
    assertThat(Http.replayed(retry)).isFalse();
    assertThat(retry.body()).contains("\"pid\":" + secondPid);
    assertThat(Http.replayed(again)).as("and from then on it is replayed").isTrue();
    assertThat(again.body()).isEqualTo(retry.body());
    assertThat(orders(h2)).as("exactly one completed order, by the second process (retried %d ms after the kill)",
        retriedAfterMillis).containsExactly(key + " " + secondPid);
    assertThat(records(h2)).as("the claim was taken over and completed").containsExactly("COMPLETED taken over");
  }

  /** The idempotency records in the H2 file: their state, and whether a lease was taken over. */
  private static List<String> records(Path h2) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(ShopServerMain.url(h2.toString()), "sa", "");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT state, taken_over FROM idempotency_record")) {
      while (r.next()) {
        rows.add(r.getString(1) + (r.getBoolean(2) ? " taken over" : ""));
      }
    }
    return rows;
  }

  /** The completed orders in the H2 file, "key pid" each, read once no server holds the file. */
  private static List<String> orders(Path h2) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(ShopServerMain.url(h2.toString()), "sa", "");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT idempotency_key, pid FROM " + ShopServerMain.ORDERS + " ORDER BY id")) {
      while (r.next()) {
        rows.add(r.getString(1) + " " + r.getLong(2));
      }
    }
    return rows;
  }
}
