package io.idempotent.examples.batch;

import static io.idempotent.examples.batch.BatchTestSupport.assertBookedOnceEach;
import static io.idempotent.examples.batch.BatchTestSupport.await;
import static io.idempotent.examples.batch.BatchTestSupport.bookings;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.idempotent.examples.TestDatabases;
import io.idempotent.examples.rabbitmq.ConfirmedPublisher;
import io.idempotent.examples.rabbitmq.DeadLetteredQueue;
import io.idempotent.examples.rabbitmq.Order;
import io.idempotent.examples.rabbitmq.OrderCheck;
import io.idempotent.examples.rabbitmq.RabbitBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link RabbitBatchConsumer} with {@link OrderBatches} on the real broker and PostgreSQL: batches of up to
 * 50 deliveries (prefetch 50), each batch in one transaction with {@code Idempotency.batch} in joined mode.
 * Every booking is a row in a table without a unique constraint, so a second booking would show; every test
 * counts them, and the deliveries and settlements.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchRabbitConsumerTest {

  static final long LIMIT = 100_000;
  static final Duration SETTLED_WITHIN = Duration.ofSeconds(30);
  static final Duration LINGER = Duration.ofMillis(50);

  RabbitBroker broker;
  String schema;
  BatchDatabase database;
  Connection connection;
  Channel admin;
  DeadLetteredQueue queue;
  String prefix;

  @BeforeAll
  void open() {
    broker = new RabbitBroker(BatchTestSupport.rabbitUri());
    schema = TestDatabases.createPostgresSchema();
    database = BatchTestSupport.database(schema);
  }

  @AfterAll
  void close() {
    try {
      if (database != null) {
        database.close();
      }
    } finally {
      if (schema != null) {
        TestDatabases.dropPostgresSchema(schema);
      }
    }
  }

  @BeforeEach
  void declareQueue() throws Exception {
    connection = broker.connect("idempotent-test-batch");
    admin = connection.createChannel();
    String id = UUID.randomUUID().toString().substring(0, 8);
    queue = DeadLetteredQueue.named("idempotent-test.batch." + id).declare(admin);
    prefix = "r" + id + "-";
  }

  @AfterEach
  void deleteQueue() throws Exception {
    try {
      queue.delete(admin);
    } finally {
      connection.close();
    }
  }

  Order order(int i) {
    return new Order(prefix + i, "customer-" + i % 7, 1_000 + i);
  }

  static void publish(ConfirmedPublisher publisher, String queue, Order order) throws Exception {
    publisher.publish(queue, "msg-" + order.id(), order.toBody());
  }

  /** After the consumer stopped, nothing is ready or unacknowledged, and {@code dead} messages were dead-lettered. */
  void assertQueueEmpty(RabbitBatchConsumer consumer, long dead) throws Exception {
    consumer.close(Duration.ofSeconds(10)); // an unacknowledged delivery would go back to the queue now
    assertThat(queue.ready(admin)).as("messages left in the queue").isZero();
    await("dead-lettered messages", Duration.ofSeconds(5), () -> queue.deadLettered(admin) >= dead, () -> "");
    assertThat(queue.deadLettered(admin)).as("dead-lettered messages").isEqualTo(dead);
  }

  @Test
  void thousandOrdersAndAHundredDuplicates_inTheSameBatchAndInLaterOnes_bookEachOrderOnce() throws Exception {
    int orders = 1_000;
    int declined = 10;
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
      for (int i = 0; i < orders; i++) {
        publish(publisher, queue.name(), order(i));
        if (i % 20 == 0) {
          publish(publisher, queue.name(), order(i)); // right behind: in the same batch
        }
      }
      for (int i = 10; i < orders; i += 20) {
        publish(publisher, queue.name(), order(i)); // 500 to 1,000 deliveries later: another batch
      }
      for (int d = 0; d < declined; d++) {
        Order over = new Order(prefix + "declined-" + d, "big spender", LIMIT + 1);
        publish(publisher, queue.name(), over);
        publish(publisher, queue.name(), over);
      }
      publisher.publish(queue.name(), "msg-" + prefix + "garbage", "not an order".getBytes(StandardCharsets.UTF_8));
      publisher.confirm(Duration.ofSeconds(30));
    }
    OrderBatches handler = new OrderBatches(database, LIMIT, OrderCheck.NONE);
    RabbitBatchConsumer consumer = RabbitBatchConsumer.start(connection, queue.name(), 50, LINGER, handler);
    await("every message settled", SETTLED_WITHIN,
        () -> consumer.acked() + consumer.rejected() >= orders + 100 + 2 * declined + 1, consumer::toString);
    assertQueueEmpty(consumer, 2 * declined + 1);

    assertBookedOnceEach(database.jdbi(), prefix, orders);
    assertThat(consumer.acked()).as("acks").isEqualTo(orders + 100);
    assertThat(consumer.rejected()).as("rejections: both copies of each declined order, the garbage")
        .isEqualTo(2 * declined + 1);
    assertThat(consumer.requeued()).as("requeues").isZero();
    assertThat(handler.executions()).as("bookings started: each order and each declined order once")
        .isEqualTo(orders + declined);
    for (int d = 0; d < declined; d++) {
      assertThat(consumer.deliveriesOf("msg-" + prefix + "declined-" + d)).as("deliveries of declined order %d", d)
          .isEqualTo(2); // one per copy: rejected, never requeued
    }
    assertThat(consumer.batches()).as("batches").isLessThan(2 * (orders + 121) / 50);
  }

  @Test
  void aTransientFailureInABatch_requeuesTheWholeBatch_andEachOrderIsStillBookedOnce() throws Exception {
    int orders = 300;
    Set<String> failOnce = ConcurrentHashMap.newKeySet();
    for (int i = 7; i < orders; i += 50) {
      failOnce.add(prefix + i);
    }
    OrderCheck flaky = order -> {
      if (failOnce.remove(order.id())) {
        throw new IllegalStateException("the credit service did not answer for " + order.id());
      }
    };
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
      for (int i = 0; i < orders; i++) {
        publish(publisher, queue.name(), order(i));
      }
      publisher.confirm(Duration.ofSeconds(30));
    }
    OrderBatches handler = new OrderBatches(database, LIMIT, flaky);
    RabbitBatchConsumer consumer = RabbitBatchConsumer.start(connection, queue.name(), 50, LINGER, handler);
    await("every message acknowledged", SETTLED_WITHIN, () -> consumer.acked() >= orders, consumer::toString);
    assertQueueEmpty(consumer, 0);

    assertBookedOnceEach(database.jdbi(), prefix, orders);
    assertThat(failOnce).as("every failure happened").isEmpty();
    assertThat(consumer.requeuedBatches()).as("batches rolled back and requeued whole").isBetween(1, 6);
    assertThat(consumer.requeued()).as("requeued deliveries: every delivery of those batches")
        .isGreaterThan(consumer.requeuedBatches() * 10);
    assertThat(consumer.redelivered()).as("redeliveries").isEqualTo(consumer.requeued());
    assertThat(consumer.acked()).as("acks").isEqualTo(orders);
    assertThat(handler.executions()).as("bookings started, the rolled-back ones again").isGreaterThan(orders);
  }

  @Test
  void twoConsumersOnOneQueue_withOverlappingDuplicates_bookEachOrderOnce() throws Exception {
    int orders = 500;
    try (BatchDatabase second = BatchTestSupport.database(schema);
        Connection other = broker.connect("idempotent-test-batch-2")) {
      OrderBatches first = new OrderBatches(database, LIMIT, OrderCheck.NONE);
      OrderBatches another = new OrderBatches(second, LIMIT, OrderCheck.NONE);
      RabbitBatchConsumer a = RabbitBatchConsumer.start(connection, queue.name(), 50, LINGER, first);
      RabbitBatchConsumer b = RabbitBatchConsumer.start(other, queue.name(), 50, LINGER, another);
      try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
        for (int i = 0; i < orders + 30; i++) {
          if (i < orders) {
            publish(publisher, queue.name(), order(i));
          }
          if (i >= 30) {
            publish(publisher, queue.name(), order(i - 30)); // the copy, 30 messages later: the other consumer's
          }
        }
        publisher.confirm(Duration.ofSeconds(30));
      }
      await("every message acknowledged", SETTLED_WITHIN, () -> a.acked() + b.acked() >= 2 * orders,
          () -> "a: " + a + "; b: " + b);
      b.close(Duration.ofSeconds(10));
      assertQueueEmpty(a, 0);

      assertBookedOnceEach(database.jdbi(), prefix, orders);
      assertThat(a.acked() + b.acked()).as("acks").isEqualTo(2 * orders);
      assertThat(a.acked()).as("the first consumer's acks").isPositive();
      assertThat(b.acked()).as("the second consumer's acks").isPositive();
      assertThat(bookings(database.jdbi(), prefix)).hasSize(orders);
    }
  }
}
