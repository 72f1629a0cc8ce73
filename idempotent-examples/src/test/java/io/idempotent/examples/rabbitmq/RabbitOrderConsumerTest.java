package io.idempotent.examples.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;
import com.rabbitmq.client.impl.ForgivingExceptionHandler;
import io.idempotent.examples.TestDatabases;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The recipe on the real broker and PostgreSQL: orders published with confirms to a queue of each test's
 * own, consumed by {@link OrderIntake} on a {@link SettlingConsumer}, booked in the joined store's
 * transaction. Every booking is a row in a table without a unique constraint, so a second booking of an
 * order would show as a second row; every test counts them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitOrderConsumerTest {

  static final long LIMIT = 100_000;
  static final Duration SETTLED_WITHIN = Duration.ofSeconds(45);

  RabbitBroker broker;
  String schema;
  OrderDatabase database;
  BookedOrders booked;

  Connection publishing;
  Channel admin;
  DeadLetteredQueue queue;
  /** The order ids of a test start with it, so tests share the table without seeing each other's rows. */
  String prefix;

  @BeforeAll
  void open() {
    broker = TestBroker.reach();
    schema = TestDatabases.createPostgresSchema();
    database = OrderDatabase.open(TestDatabases.postgres(schema));
    booked = new BookedOrders(database.jdbi());
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
  void declareQueues() throws Exception {
    publishing = broker.connect("idempotent-test-publisher");
    admin = publishing.createChannel();
    String id = UUID.randomUUID().toString().substring(0, 8);
    queue = DeadLetteredQueue.named("idempotent-test.orders." + id).declare(admin);
    prefix = "o" + id + "-";
  }

  @AfterEach
  void deleteQueues() throws Exception {
    try {
      queue.delete(admin);
    } finally {
      publishing.close();
    }
  }

  Order order(int i) {
    return new Order(prefix + i, "customer-" + i % 7, 1_000 + i);
  }

  static String messageId(Order order) {
    return "msg-" + order.id();
  }

  /** Publishes {@code order} {@code copies} times with the same message id. */
  static void publish(ConfirmedPublisher publisher, String queue, Order order, int copies) throws IOException {
    for (int c = 0; c < copies; c++) {
      publisher.publish(queue, messageId(order), order.toBody());
    }
  }

  String counts(SettlingConsumer c) {
    return String.format("deliveries %d, redelivered %d, acked %d, rejected %d, requeued %d, unsettled %d,"
            + " booked %d", c.deliveries(), c.redelivered(), c.acked(), c.rejected(), c.requeued(), c.unsettled(),
        booked.count(prefix));
  }

  /** Every order in [0, n) booked exactly once, and nothing else with the test's prefix. */
  void assertBookedOnceEach(int n) {
    BookedOnce.assertEach(booked.byOrder(prefix), prefix, n);
  }

  /** After the consumer stopped (its channels closed), nothing is left unacknowledged or ready. */
  void assertQueueEmptyAfter(SettlingConsumer consumer, long deadLettered) throws Exception {
    consumer.close(Duration.ofSeconds(10)); // an unacknowledged delivery would go back to the queue now
    assertThat(queue.ready(admin)).as("messages left in the queue").isZero();
    Eventually.await("dead-lettered messages", Duration.ofSeconds(5),
        () -> queue.deadLettered(admin) >= deadLettered, () -> "");
    assertThat(queue.deadLettered(admin)).as("dead-lettered messages").isEqualTo(deadLettered);
  }

  @Test
  void thousandOrdersAndAHundredPublishedTwice_bookEachOrderOnce_ackEveryMessage() throws Exception {
    int orders = 1_000;
    int twice = 100; // every tenth order, its copy right behind it, so copies overlap on two channels
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(publishing)) {
      for (int i = 0; i < orders; i++) {
        publish(publisher, queue.name(), order(i), i % 10 == 0 ? 2 : 1);
      }
      publisher.confirm(Duration.ofSeconds(30));
    }
    OrderBook book = new OrderBook(LIMIT, OrderCheck.NONE);
    try (Connection connection = broker.connect("idempotent-test-consumer")) {
      SettlingConsumer consumer = new OrderIntake(database.jdbi(), book).consume(connection, queue.name(), 4, 50);
      Eventually.await("every message acknowledged", SETTLED_WITHIN, () -> consumer.acked() >= orders + twice,
          () -> counts(consumer));
      assertQueueEmptyAfter(consumer, 0);

      assertBookedOnceEach(orders);
      assertThat(consumer.acked()).as("acknowledged").isEqualTo(orders + twice);
      assertThat(consumer.rejected() + consumer.requeued()).as("rejected or requeued").isZero();
      assertThat(book.executions()).as("bookings run; the second copies replayed").isEqualTo(orders);
    }
  }

  @Test
  void handlerFailsTransientlyOnce_nackRequeues_theRedeliveryBooksEachOrderOnce() throws Exception {
    int orders = 200;
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    // every fifth order's check is unavailable the first time: the booking rolls back, the delivery requeues
    OrderCheck flaky = order -> {
      if (Integer.parseInt(order.id().substring(prefix.length())) % 5 == 0 && failedOnce.add(order.id())) {
        throw new IllegalStateException("credit check unavailable for " + order.id());
      }
    };
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(publishing)) {
      for (int i = 0; i < orders; i++) {
        publish(publisher, queue.name(), order(i), 1);
      }
      publisher.confirm(Duration.ofSeconds(30));
    }
    OrderBook book = new OrderBook(LIMIT, flaky);
    try (Connection connection = broker.connect("idempotent-test-consumer")) {
      SettlingConsumer consumer = new OrderIntake(database.jdbi(), book).consume(connection, queue.name(), 4, 50);
      Eventually.await("every message acknowledged", SETTLED_WITHIN, () -> consumer.acked() >= orders,
          () -> counts(consumer));
      assertQueueEmptyAfter(consumer, 0);

      assertBookedOnceEach(orders);
      assertThat(failedOnce).hasSize(orders / 5);
      assertThat(consumer.requeued()).as("nacked with requeue").isEqualTo(orders / 5);
      assertThat(consumer.redelivered()).as("redelivered").isGreaterThanOrEqualTo(orders / 5);
      assertThat(consumer.acked()).as("acknowledged").isEqualTo(orders);
      assertThat(book.executions()).as("bookings run: the failed ones twice").isEqualTo(orders + orders / 5);
    }
  }

  @Test
  void connectionDropsAfterACommitBeforeItsAck_theRedeliveryReplays_noOrderBookedTwiceOrLost() throws Exception {
    int orders = 300;
    int cutAfter = 100;
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(publishing)) {
      for (int i = 0; i < orders; i++) {
        publish(publisher, queue.name(), order(i), 1);
      }
      publisher.confirm(Duration.ofSeconds(30));
    }
    // the consumer's socket, to cut it as a network failure would; the client then recovers by itself
    RabbitBroker consumerBroker = new RabbitBroker(TestBroker.uri());
    AtomicReference<Socket> socket = new AtomicReference<>();
    consumerBroker.factory().setExceptionHandler(new ForgivingExceptionHandler() {
      @Override
      protected void log(String message, Throwable e) {
        // the socket this test cuts: expected, and the client recovers
      }
    });
    consumerBroker.factory().setSocketConfigurator(s -> {
      s.setTcpNoDelay(true);
      socket.set(s);
    });
    OrderBook book = new OrderBook(LIMIT, OrderCheck.NONE);
    OrderIntake intake = new OrderIntake(database.jdbi(), book);
    AtomicInteger handled = new AtomicInteger();
    AtomicReference<String> cutMessage = new AtomicReference<>();
    DeliveryHandler cutting = (properties, body) -> {
      intake.handle(properties, body); // committed
      if (handled.incrementAndGet() == cutAfter) {
        cutMessage.set(properties.getMessageId());
        socket.get().close(); // before the acknowledgement
      }
    };
    try (Connection connection = consumerBroker.connect("idempotent-test-consumer")) {
      SettlingConsumer consumer = SettlingConsumer.start(connection, queue.name(), 4, 50, cutting,
          OrderDeclinedException.class, UnreadableOrderException.class);
      Eventually.await("every order booked, the cut delivery delivered again", SETTLED_WITHIN,
          () -> booked.count(prefix) >= orders && consumer.deliveriesOf(cutMessage.get()) >= 2
              && queue.ready(admin) == 0,
          () -> counts(consumer));
      assertQueueEmptyAfter(consumer, 0);

      assertBookedOnceEach(orders);
      assertThat(consumer.unsettled()).as("acknowledgements the dropped connection lost").isPositive();
      assertThat(consumer.redelivered()).as("redelivered after the drop").isPositive();
      assertThat(consumer.acked()).as("acknowledged").isGreaterThanOrEqualTo(orders);
      assertThat(book.executions()).as("bookings run: the redeliveries of committed ones replayed")
          .isEqualTo(orders);
    }
  }

  @Test
  void declinedUnreadableAndKeylessMessages_areDeadLettered_eachDeliveredOnlyAsOftenAsPublished() throws Exception {
    int orders = 20;
    Set<Integer> declined = Set.of(3, 7, 11, 15, 19);
    try (ConfirmedPublisher publisher = ConfirmedPublisher.open(publishing)) {
      for (int i = 0; i < orders; i++) {
        Order o = declined.contains(i) ? new Order(prefix + i, "big-spender", LIMIT + 1) : order(i);
        publish(publisher, queue.name(), o, declined.contains(i) ? 2 : 1); // a declined one's copy replays
      }
      publisher.publish(queue.name(), "msg-" + prefix + "garbage", "not an order".getBytes(StandardCharsets.UTF_8));
      publisher.confirm(Duration.ofSeconds(30));
    }
    // and one without a message id: the handler's key is missing
    AMQP.BasicProperties noId = MessageProperties.PERSISTENT_BASIC;
    admin.confirmSelect();
    admin.basicPublish("", queue.name(), noId, new Order(prefix + "keyless", "x", 1).toBody());
    admin.waitForConfirmsOrDie(10_000);
    int deadLetters = declined.size() * 2 + 2;
    int acks = orders - declined.size();

    OrderBook book = new OrderBook(LIMIT, OrderCheck.NONE);
    try (Connection connection = broker.connect("idempotent-test-consumer")) {
      SettlingConsumer consumer = new OrderIntake(database.jdbi(), book).consume(connection, queue.name(), 4, 50);
      Eventually.await("every message settled", SETTLED_WITHIN, () -> {
        assertThat(consumer.deliveries()).as("deliveries, %s", counts(consumer)).isLessThanOrEqualTo(acks + deadLetters);
        return consumer.acked() + consumer.rejected() >= acks + deadLetters;
      }, () -> counts(consumer));
      Thread.sleep(200); // a requeue loop would show as more deliveries by now
      assertQueueEmptyAfter(consumer, deadLetters);

      Map<String, Integer> rows = booked.byOrder(prefix);
      for (int i = 0; i < orders; i++) {
        assertThat(rows.getOrDefault(prefix + i, 0)).as("bookings of order " + i).isEqualTo(declined.contains(i) ? 0 : 1);
      }
      assertThat(rows).hasSize(acks);
      for (int i : declined) {
        assertThat(consumer.deliveriesOf("msg-" + prefix + i)).as("deliveries of declined order " + i).isEqualTo(2);
      }
      assertThat(consumer.deliveries()).as("deliveries: each message once").isEqualTo(acks + deadLetters);
      assertThat(consumer.requeued()).as("requeued").isZero();
      assertThat(consumer.rejected()).as("rejected").isEqualTo(deadLetters);
      assertThat(book.executions()).as("bookings run: each declined order's copy replayed the decline")
          .isEqualTo(orders);
    }
  }
}
