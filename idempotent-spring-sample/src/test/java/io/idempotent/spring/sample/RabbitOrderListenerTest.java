package io.idempotent.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.testservers.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueInformation;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The orders queue's {@code @RabbitListener} ({@link OrderListener}) on the RabbitMQ broker and the
 * PostgreSQL server, in a real application context: queues of this run's own, a schema of its own, orders
 * published with publisher confirms. Each test counts the shipments in the {@code shipment} table, which
 * has no unique constraint, and the deliveries the listener logged in {@code order_delivery}. Skipped when
 * either server is unreachable.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE, properties = {
    "sample.orders.enabled=true",
    "sample.orders.concurrency=1", // the concurrent and connection tests raise it to 4
    "spring.rabbitmq.listener.simple.prefetch=1", // a duplicate goes to another consumer while the first runs
    "spring.rabbitmq.publisher-confirm-type=correlated",
    "spring.rabbitmq.publisher-returns=true",
    "spring.rabbitmq.template.mandatory=true",
    "sample.settlement.cron=-",
    "sample.instance=test",
    "spring.main.banner-mode=off",
    "logging.level.root=warn",
    // the listener container logs, with a stack trace, each failure these tests provoke (failed deliveries,
    // acknowledgements lost with the connection, the unreadable message); the tests count them instead
    "logging.level.org.springframework.amqp.rabbit.listener=off"})
@DirtiesContext
class RabbitOrderListenerTest {

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String QUEUE = "sample.orders.test-" + RUN;
  private static final String DEAD_LETTER_EXCHANGE = QUEUE + ".dlx";
  private static final String DEAD_LETTER_QUEUE = QUEUE + ".dead";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final ParameterizedTypeReference<OrderPlaced> ORDER = new ParameterizedTypeReference<>() {};

  static PostgresSchema schema;
  static ApplicationContext context;

  @Autowired
  RabbitTemplate rabbit;

  @Autowired
  AmqpAdmin admin;

  @Autowired
  RabbitListenerEndpointRegistry listeners;

  @Autowired
  CachingConnectionFactory connections;

  @Autowired
  Shipments shipments;

  @Autowired
  JdbcTemplate jdbc;

  @BeforeAll
  static void servers() {
    TestServers.RABBITMQ.requireReachable();
    schema = PostgresSchema.create();
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> schema.url());
    registry.add("spring.datasource.username", () -> TestServers.POSTGRES.user);
    registry.add("spring.datasource.password", () -> TestServers.POSTGRES.password);
    registry.add("spring.rabbitmq.host", () -> TestServers.RABBITMQ.host);
    registry.add("spring.rabbitmq.port", () -> TestServers.RABBITMQ.port);
    registry.add("sample.orders.queue", () -> QUEUE);
    registry.add("sample.orders.dead-letter-exchange", () -> DEAD_LETTER_EXCHANGE);
    registry.add("sample.orders.dead-letter-queue", () -> DEAD_LETTER_QUEUE);
  }

  @BeforeEach
  void remember(ApplicationContext applicationContext) {
    context = applicationContext;
  }

  /** Stops the listener, then deletes this run's queues and exchange and the schema. */
  @AfterAll
  static void cleanUp() {
    if (context != null) {
      context.getBean(RabbitListenerEndpointRegistry.class).stop();
      AmqpAdmin amqpAdmin = context.getBean(AmqpAdmin.class);
      amqpAdmin.deleteQueue(QUEUE);
      amqpAdmin.deleteQueue(DEAD_LETTER_QUEUE);
      amqpAdmin.deleteExchange(DEAD_LETTER_EXCHANGE);
      context = null;
    }
    if (schema != null) {
      schema.drop();
    }
  }

  @Test
  void duplicates_areShippedOnce_andTheQueueIsDrained() {
    List<OrderPlaced> orders = orders("dup", 500);
    List<OrderPlaced> published = new ArrayList<>(orders);
    List<OrderPlaced> again = new ArrayList<>(orders);
    Collections.shuffle(again, new Random(1));
    published.addAll(again.subList(0, 50)); // 50 orders published a second time, after all the others

    publish(published);
    awaitDeliveries("dup", 550);

    assertShippedOnce("dup", 500);
    assertThat(deliveries("dup")).containsOnly(Map.entry("EXECUTED ACK", 500), Map.entry("REPLAYED ACK", 50));
    assertDrained();
    assertThat(deadLetters()).isEmpty();
  }

  @Test
  void transientFailures_areRequeued_andEachOrderIsShippedOnce() {
    shipments.warehouse().failNext(40); // the next 40 calls fail: their shipments and claims roll back

    publish(orders("flaky", 200));
    awaitDeliveries("flaky", 240);

    assertShippedOnce("flaky", 200);
    // each failed delivery ran the method, was requeued and delivered again; no order was acknowledged twice
    assertThat(deliveries("flaky")).containsOnly(Map.entry("EXECUTED REQUEUE", 40), Map.entry("EXECUTED ACK", 200));
    assertDrained();
    assertThat(deadLetters()).isEmpty();
  }

  @Test
  void finalException_isDeadLettered_recordedOnce_andReplayedToItsDuplicate() throws InterruptedException {
    List<OrderPlaced> orders = new ArrayList<>(orders("final", 20));
    OrderPlaced invalid = new OrderPlaced("final-invalid-" + RUN, "coffee", 0);
    orders.add(10, invalid);
    orders.add(invalid); // delivered again: the recorded InvalidOrderException is replayed, not run

    publish(orders);
    awaitDeliveries("final", 22);
    await("2 dead-lettered messages", () -> {
      assertThat(deliveriesOf(invalid.orderId())).as("deliveries of the invalid order").hasSizeLessThanOrEqualTo(2);
      return messagesIn(DEAD_LETTER_QUEUE) == 2;
    });
    Thread.sleep(300); // a requeued final exception would be delivered again, and again, within this time

    assertThat(deadLetters()).containsExactly(invalid.orderId(), invalid.orderId());
    assertThat(deliveriesOf(invalid.orderId())).containsExactly("EXECUTED REJECT", "REPLAYED REJECT");
    assertThat(jdbc.queryForObject("SELECT failure_type FROM idempotency_record WHERE idempotency_key LIKE ?",
        String.class, "%" + invalid.orderId())).isEqualTo(InvalidOrderException.class.getName());
    assertShippedOnce("final", 20);
    assertThat(shipped(invalid.orderId())).as("shipments of the invalid order").isZero();
    assertThat(deliveries("final")).containsOnly(Map.entry("EXECUTED ACK", 20), Map.entry("EXECUTED REJECT", 1),
        Map.entry("REPLAYED REJECT", 1));
    assertDrained();
  }

  @Test
  void unreadableMessage_isDeadLettered_withoutReachingTheListener() {
    MessageProperties properties = new MessageProperties();
    properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
    Message unreadable = new Message("{\"orderId\": ".getBytes(StandardCharsets.UTF_8), properties);
    CorrelationData correlation = new CorrelationData(UUID.randomUUID().toString());
    rabbit.send("", QUEUE, unreadable, correlation);
    assertConfirmed(correlation);
    publish(orders("unreadable", 5));

    awaitDeliveries("unreadable", 5);
    await("1 dead-lettered message", () -> messagesIn(DEAD_LETTER_QUEUE) == 1);

    // the container's error handler takes a message it cannot convert as fatal: rejected without requeue
    Message deadLettered = rabbit.receive(DEAD_LETTER_QUEUE);
    assertThat(deadLettered).isNotNull();
    assertThat(deadLettered.getBody()).isEqualTo(unreadable.getBody());
    assertShippedOnce("unreadable", 5);
    assertThat(deliveries("unreadable")).containsOnly(Map.entry("EXECUTED ACK", 5));
    assertDrained();
  }

  @Test
  void concurrentConsumers_withDuplicates_shipEachOrderOnce() {
    SimpleMessageListenerContainer container = (SimpleMessageListenerContainer) listeners.getListenerContainer("orders");
    container.setConcurrentConsumers(4);
    try {
      await("4 consumers", () -> container.getActiveConsumerCount() == 4);
      List<OrderPlaced> orders = orders("conc", 300);
      List<OrderPlaced> published = new ArrayList<>();
      for (OrderPlaced order : orders) {
        published.add(order); // each order twice in a row: the two go to different consumers at once
        published.add(order);
      }

      publish(published);
      await("600 acknowledged deliveries", () -> settled("conc", "ACK") == 600);

      assertShippedOnce("conc", 300);
      Map<String, Integer> deliveries = deliveries("conc");
      assertThat(deliveries).containsEntry("EXECUTED ACK", 300).containsEntry("REPLAYED ACK", 300)
          .doesNotContainKeys("EXECUTED REQUEUE", "EXECUTED REJECT", "REPLAYED REJECT");
      // a duplicate delivered while its first delivery ran: refused (in progress), requeued, replayed later
      assertThat(deliveries).containsKey("REFUSED REQUEUE");
      assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT consumer) FROM shipment WHERE order_id LIKE ?",
          Integer.class, "conc-%")).as("consumer threads that shipped").isGreaterThan(1);
      assertDrained();
    } finally {
      container.setConcurrentConsumers(1);
    }
  }

  @Test
  void connectionClosedMidStream_unacknowledgedDeliveriesComeBack_andEachOrderIsShippedOnce() {
    SimpleMessageListenerContainer container = (SimpleMessageListenerContainer) listeners.getListenerContainer("orders");
    container.setConcurrentConsumers(4);
    try {
      await("4 consumers", () -> container.getActiveConsumerCount() == 4);
      publish(orders("reset", 300));

      // the consumers' connection closed under them, twice: deliveries in flight are requeued by the broker
      // (those whose shipment committed but whose acknowledgement did not get through among them), and the
      // container reconnects and consumes on
      await("100 shipments", () -> shipped("reset-") >= 100);
      connections.resetConnection();
      await("200 shipments", () -> shipped("reset-") >= 200);
      connections.resetConnection();
      await("every order acknowledged", () -> jdbc.queryForObject(
          "SELECT COUNT(DISTINCT order_id) FROM order_delivery WHERE order_id LIKE ? AND settlement = 'ACK'",
          Integer.class, "reset-%") == 300);

      assertShippedOnce("reset", 300);
      Map<String, Integer> deliveries = deliveries("reset");
      assertThat(deliveries).containsEntry("EXECUTED ACK", 300).doesNotContainKeys("EXECUTED REJECT", "REPLAYED REJECT");
      // shipped, but the acknowledgement went down with the connection: delivered again, replayed
      assertThat(deliveries.get("REPLAYED ACK")).as("deliveries replayed after the connection closed").isPositive();
      assertDrained();
    } finally {
      container.setConcurrentConsumers(1);
    }
  }

  private static List<OrderPlaced> orders(String prefix, int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> new OrderPlaced(prefix + "-" + RUN + "-" + i, i % 2 == 0 ? "coffee" : "tea", 1 + i % 3))
        .collect(Collectors.toList());
  }

  /** Publishes the orders to the orders queue and waits for the broker to confirm each one as routed. */
  private void publish(List<OrderPlaced> orders) {
    List<CorrelationData> sent = new ArrayList<>();
    for (OrderPlaced order : orders) {
      CorrelationData correlation = new CorrelationData(UUID.randomUUID().toString());
      rabbit.convertAndSend("", QUEUE, order, correlation);
      sent.add(correlation);
    }
    sent.forEach(RabbitOrderListenerTest::assertConfirmed);
  }

  /** The broker confirmed the message as routed to a queue. */
  private static void assertConfirmed(CorrelationData correlation) {
    try {
      assertThat(correlation.getFuture().get(10, TimeUnit.SECONDS).ack()).as("confirmed").isTrue();
    } catch (Exception e) {
      throw new AssertionError("no confirm for a published message", e);
    }
    assertThat(correlation.getReturned()).as("returned as unroutable").isNull();
  }

  /** Each of the prefix's {@code orders} orders has exactly one shipment row. */
  private void assertShippedOnce(String prefix, int orders) {
    assertThat(jdbc.queryForList("SELECT order_id FROM shipment WHERE order_id LIKE ? GROUP BY order_id"
        + " HAVING COUNT(*) > 1", String.class, prefix + "-%")).as("orders shipped more than once").isEmpty();
    assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM shipment WHERE order_id LIKE ?",
        Integer.class, prefix + "-%")).as("orders shipped").isEqualTo(orders);
  }

  /** Deliveries of the prefix's orders by "outcome settlement", e.g. "EXECUTED ACK". */
  private Map<String, Integer> deliveries(String prefix) {
    return jdbc.query("SELECT outcome, settlement, COUNT(*) FROM order_delivery WHERE order_id LIKE ?"
                + " GROUP BY outcome, settlement",
            (rs, i) -> Map.entry(rs.getString(1) + " " + rs.getString(2), rs.getInt(3)), prefix + "-%").stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private List<String> deliveriesOf(String orderId) {
    return jdbc.query("SELECT outcome, settlement FROM order_delivery WHERE order_id = ? ORDER BY outcome",
        (rs, i) -> rs.getString(1) + " " + rs.getString(2), orderId);
  }

  /** Shipment rows of the orders whose id starts with {@code prefix}. */
  private int shipped(String prefix) {
    return jdbc.queryForObject("SELECT COUNT(*) FROM shipment WHERE order_id LIKE ?", Integer.class, prefix + "%");
  }

  private int settled(String prefix, String settlement) {
    return jdbc.queryForObject("SELECT COUNT(*) FROM order_delivery WHERE order_id LIKE ? AND settlement = ?",
        Integer.class, prefix + "-%", settlement);
  }

  private void awaitDeliveries(String prefix, int count) {
    await(count + " deliveries", () -> jdbc.queryForObject(
        "SELECT COUNT(*) FROM order_delivery WHERE order_id LIKE ?", Integer.class, prefix + "-%") >= count);
  }

  /** Takes the messages of the dead-letter queue: their order ids. */
  private List<String> deadLetters() {
    List<String> ids = new ArrayList<>();
    for (OrderPlaced order; (order = rabbit.receiveAndConvert(DEAD_LETTER_QUEUE, ORDER)) != null; ) {
      ids.add(order.orderId());
    }
    return ids;
  }

  private long messagesIn(String queue) {
    QueueInformation info = admin.getQueueInfo(queue);
    assertThat(info).as(queue).isNotNull();
    return info.getMessageCount();
  }

  /**
   * The orders queue holds no message: the listener is stopped, so that a delivered but unacknowledged
   * message would be back in the queue, counted; then it starts again.
   */
  private void assertDrained() {
    MessageListenerContainer container = listeners.getListenerContainer("orders");
    container.stop();
    try {
      assertThat(messagesIn(QUEUE)).as("messages left in the orders queue").isZero();
    } finally {
      container.start();
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + TIMEOUT.toSeconds() + " s waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
