package io.idempotent.examples.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyEvent;
import io.idempotent.Settlement;
import io.idempotent.examples.nats.RecordingConsumer.Delivery;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The JetStream recipe on the real server: a durable pull consumer whose handler books each order once in
 * PostgreSQL, in the transaction that records its key, acknowledging after the commit. The bookings table
 * has no unique constraint: only the recipe keeps each order to one row.
 */
class JetStreamConsumerTest {

  private static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

  @Test
  void thousandOrders_hundredPublishedAgainUnderNewMsgIds_eachBookedOnce() throws Exception {
    try (JetStreamFixture f = JetStreamFixture.create(Duration.ofSeconds(5), 5, DEFAULT_WINDOW)) {
      List<CompletableFuture<PublishAck>> published = new ArrayList<>();
      List<Integer> copies = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        copies.add(i);
        if (i % 10 == 0) {
          copies.add(-i - 1); // a second copy, published by a retrying producer under a new Nats-Msg-Id
        }
      }
      Collections.shuffle(copies, new Random(42));
      for (int c : copies) {
        int i = c >= 0 ? c : -c - 1;
        published.add(f.publishAsync(new Order(orderId(i), 100 + i), orderId(i) + (c >= 0 ? "/1" : "/2")));
      }
      for (CompletableFuture<PublishAck> p : published) {
        assertThat(p.join().isDuplicate()).as("a new Nats-Msg-Id is not a duplicate to the stream").isFalse();
      }
      assertThat(f.storedMessages()).isEqualTo(1100);

      OrderLedger ledger = new OrderLedger(OrderLedger.NextStep.NONE);
      List<RecordingConsumer> consumers = List.of(
          f.consumer(ledger, 50, Duration.ofMillis(200)), f.consumer(ledger, 50, Duration.ofMillis(200)));
      RecordingConsumer.runUntilDrained(f, consumers, Duration.ofSeconds(60));

      Map<String, Integer> bookings = f.bookings();
      assertThat(bookings).hasSize(1000);
      assertThat(bookings).allSatisfy((order, n) -> assertThat(n).as(order).isEqualTo(1));
      assertThat(f.bookingRows()).isEqualTo(1000);
      assertThat(ledger.runs()).as("the handler's body ran once per order").isEqualTo(1000);
      assertThat(consumers.stream().mapToLong(JetStreamOrderConsumer::terminated).sum()).isZero();
      Map<String, List<Delivery>> deliveries = RecordingConsumer.merged(consumers);
      assertThat(deliveries.get(orderId(0)).stream().filter(d -> d.settlement() == Settlement.ACK))
          .as("both copies of order 0 acknowledged").hasSize(2);
      assertThat(f.events(IdempotencyEvent.Type.REPLAYED)).as("the second copies replayed").isEqualTo(100);
    }
  }

  @Test
  void handlerSlowerThanAckWait_messageRedeliveredWhileItRuns_bookedOnce() throws Exception {
    // one slow order, so that the other consumer is free to fetch its redelivery while it runs; the
    // messages fetched in the same batch behind it are redelivered too
    Set<String> slow = Set.of(orderId(2));
    try (JetStreamFixture f = JetStreamFixture.create(Duration.ofSeconds(1), 10, DEFAULT_WINDOW)) {
      for (int i = 0; i < 10; i++) {
        f.publish(new Order(orderId(i), 100 + i), orderId(i));
      }
      OrderLedger ledger = new OrderLedger(order -> {
        if (slow.contains(order.id())) {
          sleep(Duration.ofMillis(2500)); // longer than the AckWait, inside the transaction
        }
      });
      List<RecordingConsumer> consumers = List.of(
          f.consumer(ledger, 50, Duration.ofMillis(300)), f.consumer(ledger, 50, Duration.ofMillis(300)));
      RecordingConsumer.runUntilDrained(f, consumers, Duration.ofSeconds(30));

      Map<String, List<Delivery>> deliveries = RecordingConsumer.merged(consumers);
      for (String order : slow) {
        assertThat(deliveries.get(order)).as("deliveries of %s", order)
            .extracting(Delivery::deliveredCount).contains(1L, 2L); // redelivered after AckWait
      }
      assertThat(f.bookings()).hasSize(10).allSatisfy((order, n) -> assertThat(n).as(order).isEqualTo(1));
      assertThat(ledger.runs()).as("redeliveries were refused while the first ran, then replayed")
          .isEqualTo(10);
      assertThat(f.events(IdempotencyEvent.Type.IN_PROGRESS)).as("a redelivery found the first running")
          .isPositive();
      assertThat(f.events(IdempotencyEvent.Type.REPLAYED)).as("a redelivery after its commit").isPositive();
    }
  }

  @Test
  void transientFailure_nakedAndBookedOnRedelivery_andAFailureThatStays_stopsAtMaxDeliver() throws Exception {
    Set<String> failOnce = Set.of(orderId(1), orderId(2));
    String failAlways = orderId(9);
    Map<String, Integer> attempts = new ConcurrentHashMap<>();
    try (JetStreamFixture f = JetStreamFixture.create(Duration.ofSeconds(5), 3, DEFAULT_WINDOW)) {
      for (int i = 0; i < 10; i++) {
        f.publish(new Order(orderId(i), 100 + i), orderId(i));
      }
      OrderLedger ledger = new OrderLedger(order -> {
        int attempt = attempts.merge(order.id(), 1, Integer::sum);
        if (order.id().equals(failAlways) || (failOnce.contains(order.id()) && attempt == 1)) {
          // after the booking's INSERT: the rollback takes it back with the claim
          throw new IllegalStateException("stock service unavailable");
        }
      });
      RecordingConsumer consumer = f.consumer(ledger, 50, Duration.ofMillis(100));
      RecordingConsumer.runUntilDrained(f, List.of(consumer), Duration.ofSeconds(30));

      Map<String, Integer> bookings = f.bookings();
      for (int i = 0; i < 9; i++) {
        assertThat(bookings.get(orderId(i))).as(orderId(i)).isEqualTo(1);
      }
      assertThat(bookings).doesNotContainKey(failAlways).hasSize(9);
      for (String order : failOnce) {
        assertThat(consumer.deliveries().get(order)).as(order).containsExactly(
            new Delivery(1, Settlement.REQUEUE), new Delivery(2, Settlement.ACK));
      }
      assertThat(consumer.deliveries().get(failAlways)).as("delivered MaxDeliver times, then no more")
          .containsExactly(new Delivery(1, Settlement.REQUEUE), new Delivery(2, Settlement.REQUEUE),
              new Delivery(3, Settlement.REQUEUE));
      assertThat(ledger.runs()).isEqualTo(7 + 2 * 2 + 3);
    }
  }

  @Test
  void finalException_terminatedAtFirstDelivery_recordedOnce_aCopyReplaysItAndIsTerminated() throws Exception {
    // an AckWait well above a loaded machine's first batch (its pool and schema are made in it): a
    // termination sent late would otherwise meet a redelivery the test would count as a second delivery
    Duration ackWait = Duration.ofSeconds(5);
    try (JetStreamFixture f = JetStreamFixture.create(ackWait, 5, DEFAULT_WINDOW)) {
      for (int i = 0; i < 5; i++) {
        f.publish(new Order(orderId(i), 100 + i), orderId(i));
      }
      List<Order> bad = List.of(new Order("bad-1", 0), new Order("bad-2", -5));
      for (Order order : bad) {
        f.publish(order, order.id() + "/1");
        f.publish(order, order.id() + "/2"); // a copy under a new Nats-Msg-Id
      }
      OrderLedger ledger = new OrderLedger(OrderLedger.NextStep.NONE);
      RecordingConsumer consumer = f.consumer(ledger, 50, Duration.ofMillis(100));
      RecordingConsumer.runUntilDrained(f, List.of(consumer), Duration.ofSeconds(30));
      // longer than an AckWait more: a terminated message is not delivered again
      RecordingConsumer.runUntilDrained(f, List.of(consumer), Duration.ofSeconds(30));
      sleep(ackWait.plusSeconds(1));
      assertThat(consumer.fetchBatch()).as("nothing delivered after the terminations").isZero();

      for (Order order : bad) {
        assertThat(consumer.deliveries().get(order.id())).as("both copies of %s, each delivered once", order.id())
            .containsExactly(new Delivery(1, Settlement.REJECT), new Delivery(1, Settlement.REJECT));
      }
      assertThat(consumer.terminated()).isEqualTo(4);
      assertThat(consumer.requeued()).isZero();
      assertThat(f.recordedFailures()).as("one recorded rejection per order").isEqualTo(2);
      assertThat(f.bookings()).hasSize(5).allSatisfy((order, n) -> assertThat(n).as(order).isEqualTo(1));
      assertThat(ledger.runs()).as("each rejection ran once; its copy replayed it").isEqualTo(5 + 2);
      ConsumerInfo info = f.consumerInfo();
      assertThat(info.getNumAckPending()).isZero();
      assertThat(info.getRedelivered()).isZero();
    }
  }

  static String orderId(int i) {
    return String.format("o-%04d", i);
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
