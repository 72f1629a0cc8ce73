package io.idempotent.examples.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.idempotent.examples.TestDatabases;
import io.idempotent.testservers.TestServers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/** What the batch consumer tests share: the database, the counted effects, waiting. */
final class BatchTestSupport {

  private BatchTestSupport() {}

  /** A {@link BatchDatabase} in {@code schema} on the test PostgreSQL server. */
  static BatchDatabase database(String schema) {
    Map<String, String> settings = TestDatabases.postgres(schema);
    return BatchDatabase.open(settings.get("url"), settings.get("user"), settings.get("password"), 4);
  }

  static String rabbitUri() {
    TestServers.RABBITMQ.requireReachable();
    return "amqp://guest:guest@" + TestServers.RABBITMQ.host + ":" + TestServers.RABBITMQ.port;
  }

  static String natsUrl() {
    TestServers.NATS.requireReachable();
    return "nats://" + TestServers.NATS.host + ":" + TestServers.NATS.port;
  }

  /** Rows of the booked-order table per order id, for the order ids that start with {@code prefix}. */
  static Map<String, Integer> bookings(Jdbi jdbi, String prefix) {
    Map<String, Integer> rows = new HashMap<>();
    jdbi.useHandle(h -> h.createQuery("SELECT order_id, COUNT(*) AS n FROM " + OrderBatches.TABLE
            + " WHERE order_id LIKE :p GROUP BY order_id")
        .bind("p", prefix + "%")
        .map((rs, ctx) -> Map.entry(rs.getString("order_id"), rs.getInt("n")))
        .forEach(e -> rows.put(e.getKey(), e.getValue())));
    return rows;
  }

  /** Orders {@code prefix + 0 .. prefix + (n - 1)} are booked once each, and nothing else with the prefix. */
  static void assertBookedOnceEach(Jdbi jdbi, String prefix, int n) {
    Map<String, Integer> rows = bookings(jdbi, prefix);
    Map<String, Integer> wrong = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      int count = rows.getOrDefault(prefix + i, 0);
      if (count != 1) {
        wrong.put(prefix + i, count);
      }
    }
    rows.forEach((order, count) -> {
      if (!order.matches(Pattern.quote(prefix) + "\\d+") || Integer.parseInt(order.substring(prefix.length())) >= n) {
        wrong.put(order, count);
      }
    });
    assertThat(wrong).as("orders not booked exactly once (order id = bookings), of %d", n).isEmpty();
    assertThat(rows.values().stream().mapToInt(Integer::intValue).sum()).as("bookings").isEqualTo(n);
  }

  /** Polls {@code condition} every 10 ms until it holds; fails after {@code timeout} with {@code state}. */
  static void await(String what, Duration timeout, Callable<Boolean> condition, Supplier<String> state)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        fail("Not within " + timeout + ": " + what + "; " + state.get());
      }
      Thread.sleep(10);
    }
  }
}
