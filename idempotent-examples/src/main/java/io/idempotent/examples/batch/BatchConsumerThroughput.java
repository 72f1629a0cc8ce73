package io.idempotent.examples.batch;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.idempotent.examples.rabbitmq.ConfirmedPublisher;
import io.idempotent.examples.rabbitmq.DeadLetteredQueue;
import io.idempotent.examples.rabbitmq.Order;
import io.idempotent.examples.rabbitmq.OrderCheck;
import io.idempotent.examples.rabbitmq.RabbitBroker;
import java.io.PrintStream;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Messages per second through a batched RabbitMQ consumer on PostgreSQL ({@link RabbitBatchConsumer}, a batch
 * of up to {@code batch} deliveries per transaction, one INSERT per message), without the library
 * ({@link OrderBatches#handleUnprotected}) and with {@code Idempotency.batch} in joined mode
 * ({@link OrderBatches#handle}), alternating the two in the same run. Each measurement publishes
 * {@code messages} new orders to a fresh queue (with confirms, not timed), then times the consumer from its
 * start until it acknowledged them all, and checks that each order was booked once. Also counts the JDBC
 * statements and commits per batch ({@link CountingDataSource}).
 *
 * <pre>
 * java -Dbatch.rabbitmq.uri=amqp://guest:guest@127.0.0.1:5672
 *   -Dbatch.jdbc.url=jdbc:postgresql://127.0.0.1:5432/idempotent_test -Dbatch.jdbc.user=... -Dbatch.jdbc.password=...
 *   -cp ... io.idempotent.examples.batch.BatchConsumerThroughput [messages] [rounds] [batch]
 * </pre>
 */
public final class BatchConsumerThroughput {

  /** What to measure, and where. */
  public record Settings(String rabbitUri, String jdbcUrl, String user, String password, int messages, int rounds,
      int batch) {}

  /** The measurements of one consumer. */
  public record Result(String consumer, List<Double> rates, double messagesPerBatch, double statementsPerBatch,
      double commitsPerBatch) {

    /** The mean of the rates, in messages per second. */
    public double mean() {
      return rates.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    /** The sample standard deviation of the rates. */
    public double sd() {
      if (rates.size() < 2) {
        return 0;
      }
      double m = mean();
      return Math.sqrt(rates.stream().mapToDouble(r -> (r - m) * (r - m)).sum() / (rates.size() - 1));
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-12s %8.0f ± %5.0f msg/s  (rounds: %s)  per batch: %.1f messages,"
          + " %.1f statements, %.1f commits", consumer, mean(), sd(), rounds(), messagesPerBatch, statementsPerBatch,
          commitsPerBatch);
    }

    private String rounds() {
      List<String> r = new ArrayList<>();
      for (double d : rates) {
        r.add(String.format(Locale.ROOT, "%.0f", d));
      }
      return String.join(", ", r);
    }
  }

  /** Both consumers' results. */
  public record Report(Result unprotected, Result batched) {

    /** The protected consumer's mean rate over the unprotected one's. */
    public double ratio() {
      return batched.mean() / unprotected.mean();
    }

    /** The ratio's standard deviation, propagated from both consumers' (independent errors). */
    public double ratioSd() {
      double a = batched.sd() / batched.mean();
      double b = unprotected.sd() / unprotected.mean();
      return ratio() * Math.sqrt(a * a + b * b);
    }

    @Override
    public String toString() {
      return unprotected + "\n" + batched + "\n"
          + String.format(Locale.ROOT, "ratio batched / unprotected: %.2f ± %.2f", ratio(), ratioSd());
    }
  }

  private BatchConsumerThroughput() {}

  public static void main(String[] args) throws Exception {
    Settings settings = new Settings(
        System.getProperty("batch.rabbitmq.uri", RabbitBroker.DEFAULT_URI),
        System.getProperty("batch.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/idempotent_test"),
        System.getProperty("batch.jdbc.user", "idempotent"),
        System.getProperty("batch.jdbc.password", "idempotent"),
        args.length > 0 ? Integer.parseInt(args[0]) : 5_000,
        args.length > 1 ? Integer.parseInt(args[1]) : 5,
        args.length > 2 ? Integer.parseInt(args[2]) : 50);
    System.out.println(run(settings, System.out));
  }

  /**
   * Measures both consumers {@code rounds} times each, alternating which goes first, after one round of each
   * that is not counted (warm-up), in a new schema that is dropped at the end.
   */
  public static Report run(Settings s, PrintStream log) throws Exception {
    String schema = "batch_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    sql(s, s.jdbcUrl(), "CREATE SCHEMA " + schema);
    String url = s.jdbcUrl() + (s.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    RabbitBroker broker = new RabbitBroker(s.rabbitUri());
    List<Double> plain = new ArrayList<>();
    List<Double> batched = new ArrayList<>();
    long[] plainCounts = new long[4]; // statements, commits, batches, messages
    long[] batchedCounts = new long[4];
    try (BatchDatabase db = BatchDatabase.open(url, s.user(), s.password(), 4);
        Connection connection = broker.connect("idempotent-batch-throughput")) {
      Channel admin = connection.createChannel();
      for (int round = -1; round < s.rounds(); round++) {
        boolean plainFirst = Math.floorMod(round, 2) == 0;
        for (int turn = 0; turn < 2; turn++) {
          boolean protect = plainFirst == (turn == 1);
          double rate = measure(s, db, connection, admin, protect, round < 0 ? null : protect ? batchedCounts
              : plainCounts);
          log.printf(Locale.ROOT, "round %d %-11s %8.0f msg/s%n", round, protect ? "batched" : "unprotected", rate);
          if (round >= 0) {
            (protect ? batched : plain).add(rate);
          }
        }
      }
      admin.close();
    } finally {
      sql(s, s.jdbcUrl(), "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    return new Report(result("unprotected", plain, plainCounts), result("batched", batched, batchedCounts));
  }

  private static Result result(String name, List<Double> rates, long[] counts) {
    double batches = Math.max(1, counts[2]);
    return new Result(name, rates, counts[3] / batches, counts[0] / batches, counts[1] / batches);
  }

  /** Publishes {@code s.messages()} new orders, consumes them, and returns messages per second. */
  private static double measure(Settings s, BatchDatabase db, Connection connection, Channel admin, boolean protect,
      long @org.jspecify.annotations.Nullable [] counts) throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 8);
    DeadLetteredQueue queue = DeadLetteredQueue.named("idempotent-bench.batch." + id).declare(admin);
    try {
      String prefix = "b" + id + "-";
      try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
        for (int i = 0; i < s.messages(); i++) {
          Order order = new Order(prefix + i, "customer-" + i % 7, 1_000 + i);
          publisher.publish(queue.name(), "msg-" + order.id(), order.toBody());
          if (i % 1_000 == 999) {
            publisher.confirm(Duration.ofSeconds(30));
          }
        }
        publisher.confirm(Duration.ofSeconds(30));
      }
      OrderBatches orders = new OrderBatches(db, Long.MAX_VALUE, OrderCheck.NONE);
      BatchHandler handler = protect ? orders::handle : orders::handleUnprotected;
      long statements = db.pool().statements();
      long commits = db.pool().commits();
      long start = System.nanoTime();
      RabbitBatchConsumer consumer =
          RabbitBatchConsumer.start(connection, queue.name(), s.batch(), Duration.ofMillis(20), handler);
      long deadline = start + Duration.ofMinutes(5).toNanos();
      while (consumer.acked() < s.messages()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Not consumed within 5 minutes: " + consumer);
        }
        Thread.sleep(1);
      }
      long elapsed = System.nanoTime() - start;
      consumer.close(Duration.ofSeconds(10));
      if (counts != null) {
        counts[0] += db.pool().statements() - statements;
        counts[1] += db.pool().commits() - commits;
        counts[2] += orders.batches();
        counts[3] += s.messages();
      }
      int booked = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + OrderBatches.TABLE
          + " WHERE order_id LIKE :p").bind("p", prefix + "%").mapTo(Integer.class).one());
      if (booked != s.messages() || orders.executions() != s.messages()) {
        throw new IllegalStateException(booked + " orders booked and " + orders.executions() + " executions for "
            + s.messages() + " messages");
      }
      return s.messages() / (elapsed / 1e9);
    } finally {
      queue.delete(admin);
    }
  }

  private static void sql(Settings s, String url, String statement) throws SQLException {
    try (java.sql.Connection c = DriverManager.getConnection(url, s.user(), s.password());
        Statement st = c.createStatement()) {
      st.execute(statement);
    }
  }
}
