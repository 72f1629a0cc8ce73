package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.time.Duration;
import java.util.Map;

/**
 * The recipe's consumer as a process of its own, for the test that kills one with {@code kill -9}. Reads
 * its settings from system properties: {@code orders.queue}, {@code orders.url}, {@code orders.user},
 * {@code orders.password}, {@code orders.amqp}, {@code orders.pauseMillis} (how long each order's check
 * takes) and {@code orders.exitWhenIdle} (stop once the queue is empty and nothing arrived for a second).
 * Prints {@code consuming} once it consumes, and its counts when it stops.
 */
public final class OrderConsumerMain {

  private OrderConsumerMain() {}

  public static void main(String[] args) throws Exception {
    String queue = System.getProperty("orders.queue");
    long pause = Long.getLong("orders.pauseMillis", 0);
    boolean exitWhenIdle = Boolean.getBoolean("orders.exitWhenIdle");
    OrderCheck slow = order -> {
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    };
    try (OrderDatabase database = OrderDatabase.open(Map.of("url", System.getProperty("orders.url"),
            "user", System.getProperty("orders.user"), "password", System.getProperty("orders.password")));
        Connection connection = new RabbitBroker(System.getProperty("orders.amqp")).connect("order-consumer");
        Channel admin = connection.createChannel()) {
      OrderBook book = new OrderBook(RabbitOrderConsumerTest.LIMIT, slow);
      SettlingConsumer consumer = new OrderIntake(database.jdbi(), book).consume(connection, queue, 2, 50);
      System.out.println("consuming");
      System.out.flush();
      int seen = -1;
      long quietSince = System.nanoTime();
      while (true) {
        Thread.sleep(100);
        if (consumer.deliveries() != seen) {
          seen = consumer.deliveries();
          quietSince = System.nanoTime();
        } else if (exitWhenIdle && System.nanoTime() - quietSince > Duration.ofSeconds(1).toNanos()
            && admin.messageCount(queue) == 0) {
          break;
        }
      }
      consumer.close(Duration.ofSeconds(10));
      System.out.printf("deliveries=%d redelivered=%d acked=%d rejected=%d requeued=%d executions=%d%n",
          consumer.deliveries(), consumer.redelivered(), consumer.acked(), consumer.rejected(),
          consumer.requeued(), book.executions());
    }
  }
}
