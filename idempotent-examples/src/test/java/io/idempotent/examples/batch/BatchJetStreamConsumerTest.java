package io.idempotent.examples.batch;

import static io.idempotent.examples.batch.BatchTestSupport.assertBookedOnceEach;
import static io.idempotent.examples.batch.BatchTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.examples.TestDatabases;
import io.idempotent.examples.rabbitmq.Order;
import io.idempotent.examples.rabbitmq.OrderCheck;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link JetStreamBatchConsumer} with {@link OrderBatches} on a real NATS server with JetStream and on
 * PostgreSQL: a durable pull consumer fetched 50 at a time, each batch in one transaction with
 * {@code Idempotency.batch} in joined mode, each message acked, terminated or nak'ed after the commit. Every
 * booking is a row in a table without a unique constraint; every test counts them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchJetStreamConsumerTest {

  static final long LIMIT = 100_000;
  static final Duration SETTLED_WITHIN = Duration.ofSeconds(30);
  static final Duration MAX_WAIT = Duration.ofMillis(100);
  static final String DURABLE = "orders";
  static final int MAX_DELIVER = 5;

  String schema;
  BatchDatabase database;
  Connection nats;
  JetStreamManagement jsm;
  String stream;
  String subject;
  String prefix;

  @BeforeAll
  void open() throws Exception {
    String url = BatchTestSupport.natsUrl();
    schema = TestDatabases.createPostgresSchema();
    database = BatchTestSupport.database(schema);
    nats = Nats.connect(url);
    jsm = nats.jetStreamManagement();
  }

  @AfterAll
  void close() throws Exception {
    try {
      if (nats != null) {
        nats.close();
      }
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
  void createStream() throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 8);
    stream = "IDEMPOTENT_TEST_BATCH_" + id;
    subject = "idempotent-test.batch." + id;
    prefix = "n" + id + "-";
    jsm.addStream(StreamConfiguration.builder().name(stream).subjects(subject).storageType(StorageType.Memory)
        .build());
    jsm.addOrUpdateConsumer(stream, ConsumerConfiguration.builder()
        .durable(DURABLE)
        .filterSubject(subject)
        .ackPolicy(AckPolicy.Explicit)
        .ackWait(Duration.ofSeconds(30)) // longer than any batch takes: no redelivery while a batch runs
        .maxDeliver(MAX_DELIVER)
        .maxAckPending(1_000)
        .build());
  }

  @AfterEach
  void deleteStream() throws Exception {
    jsm.deleteStream(stream);
  }

  Order order(int i) {
    return new Order(prefix + i, "customer-" + i % 7, 1_000 + i);
  }

  /** Publishes messages and waits for the stream to have stored them all. */
  final class Publisher {
    final JetStream js;
    final List<CompletableFuture<PublishAck>> acks = new ArrayList<>();

    Publisher() throws java.io.IOException {
      js = nats.jetStream();
    }

    void publish(String messageId, byte[] body) {
      Headers headers = new Headers().add(JetStreamBatchConsumer.MESSAGE_ID, messageId);
      acks.add(js.publishAsync(NatsMessage.builder().subject(subject).headers(headers).data(body).build()));
    }

    void publish(Order order) {
      publish("msg-" + order.id(), order.toBody());
    }

    void confirm() throws Exception {
      CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    }
  }

  JetStreamBatchConsumer start(OrderBatches handler) throws Exception {
    return JetStreamBatchConsumer.start(nats, stream, DURABLE, subject, 50, MAX_WAIT, handler);
  }

  /** After the consumers stopped, the durable consumer has nothing pending and nothing waiting for an ack. */
  void assertNothingPending() throws Exception {
    await("nothing pending", Duration.ofSeconds(5), () -> {
      ConsumerInfo info = jsm.getConsumerInfo(stream, DURABLE);
      return info.getNumPending() == 0 && info.getNumAckPending() == 0;
    }, () -> {
      try {
        ConsumerInfo info = jsm.getConsumerInfo(stream, DURABLE);
        return "pending " + info.getNumPending() + ", ack pending " + info.getNumAckPending();
      } catch (Exception e) {
        return e.toString();
      }
    });
  }

  @Test
  void thousandOrdersAndAHundredDuplicates_inTheSameBatchAndInLaterOnes_bookEachOrderOnce() throws Exception {
    int orders = 1_000;
    int declined = 10;
    Publisher publisher = new Publisher();
    for (int i = 0; i < orders; i++) {
      publisher.publish(order(i));
      if (i % 20 == 0) {
        publisher.publish(order(i)); // right behind: in the same fetch
      }
    }
    for (int i = 10; i < orders; i += 20) {
      publisher.publish(order(i)); // 500 to 1,000 messages later: another fetch
    }
    for (int d = 0; d < declined; d++) {
      Order over = new Order(prefix + "declined-" + d, "big spender", LIMIT + 1);
      publisher.publish(over);
      publisher.publish(over);
    }
    publisher.publish("msg-" + prefix + "garbage", "not an order".getBytes(StandardCharsets.UTF_8));
    publisher.confirm();

    OrderBatches handler = new OrderBatches(database, LIMIT, OrderCheck.NONE);
    JetStreamBatchConsumer consumer = start(handler);
    await("every message settled", SETTLED_WITHIN,
        () -> consumer.acked() + consumer.terminated() >= orders + 100 + 2 * declined + 1, consumer::toString);
    consumer.close(Duration.ofSeconds(10));
    assertNothingPending();

    assertBookedOnceEach(database.jdbi(), prefix, orders);
    assertThat(consumer.acked()).as("acks").isEqualTo(orders + 100);
    assertThat(consumer.terminated()).as("terms: both copies of each declined order, the garbage")
        .isEqualTo(2 * declined + 1);
    assertThat(consumer.naked()).as("naks").isZero();
    assertThat(consumer.redelivered()).as("redeliveries").isZero();
    assertThat(handler.executions()).as("bookings started: each order and each declined order once")
        .isEqualTo(orders + declined);
    for (int d = 0; d < declined; d++) {
      assertThat(consumer.deliveriesOf("msg-" + prefix + "declined-" + d)).as("deliveries of declined order %d", d)
          .isEqualTo(2); // one per copy: terminated, never delivered again
    }
  }

  @Test
  void aTransientFailureInABatch_naksTheWholeBatch_andEachOrderIsStillBookedOnce() throws Exception {
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
    Publisher publisher = new Publisher();
    for (int i = 0; i < orders; i++) {
      publisher.publish(order(i));
    }
    publisher.confirm();
    OrderBatches handler = new OrderBatches(database, LIMIT, flaky);
    JetStreamBatchConsumer consumer = start(handler);
    await("every message acked", SETTLED_WITHIN, () -> consumer.acked() >= orders, consumer::toString);
    consumer.close(Duration.ofSeconds(10));
    assertNothingPending();

    assertBookedOnceEach(database.jdbi(), prefix, orders);
    assertThat(failOnce).as("every failure happened").isEmpty();
    assertThat(consumer.requeuedBatches()).as("batches rolled back and nak'ed whole").isBetween(1, 6);
    assertThat(consumer.naked()).as("nak'ed messages: every message of those batches")
        .isGreaterThan(consumer.requeuedBatches() * 10);
    assertThat(consumer.redelivered()).as("redeliveries").isEqualTo(consumer.naked());
    assertThat(consumer.acked()).as("acks").isEqualTo(orders);
    assertThat(handler.executions()).as("bookings started, the rolled-back ones again").isGreaterThan(orders);
  }

  @Test
  void twoConsumersOnOneDurable_withOverlappingDuplicates_bookEachOrderOnce() throws Exception {
    int orders = 500;
    try (BatchDatabase second = BatchTestSupport.database(schema); Connection other = Nats.connect(
        BatchTestSupport.natsUrl())) {
      OrderBatches first = new OrderBatches(database, LIMIT, OrderCheck.NONE);
      OrderBatches another = new OrderBatches(second, LIMIT, OrderCheck.NONE);
      JetStreamBatchConsumer a = start(first);
      JetStreamBatchConsumer b =
          JetStreamBatchConsumer.start(other, stream, DURABLE, subject, 50, MAX_WAIT, another);
      Publisher publisher = new Publisher();
      for (int i = 0; i < orders + 30; i++) {
        if (i < orders) {
          publisher.publish(order(i));
        }
        if (i >= 30) {
          publisher.publish(order(i - 30)); // the copy, 30 messages later: often the other consumer's
        }
      }
      publisher.confirm();
      await("every message acked", SETTLED_WITHIN, () -> a.acked() + b.acked() >= 2 * orders,
          () -> "a: " + a + "; b: " + b);
      a.close(Duration.ofSeconds(10));
      b.close(Duration.ofSeconds(10));
      assertNothingPending();

      assertBookedOnceEach(database.jdbi(), prefix, orders);
      assertThat(a.acked() + b.acked()).as("acks").isEqualTo(2 * orders);
      assertThat(a.terminated() + b.terminated()).as("terms").isZero();
    }
  }
}
