package io.idempotent.examples.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyEvent;
import io.idempotent.Settlement;
import io.idempotent.examples.nats.RecordingConsumer.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * JetStream's own de-duplication next to the recipe's: the stream drops a message whose {@code
 * Nats-Msg-Id} it has seen within its duplicate window, and stores it again after the window; the
 * idempotent consumer then keeps the effect single.
 */
class JetStreamDeduplicationTest {

  private static final Duration WINDOW = Duration.ofSeconds(1);

  @Test
  void sameMsgIdWithinTheWindow_droppedByTheStream_afterTheWindow_storedAgain_bookedOnce() throws Exception {
    try (JetStreamFixture f = JetStreamFixture.create(Duration.ofSeconds(5), 5, WINDOW)) {
      Order order = new Order("o-dup", 4200);
      assertThat(f.publish(order, "o-dup").isDuplicate()).isFalse();
      assertThat(f.publish(order, "o-dup").isDuplicate()).as("a publisher's retry inside the window").isTrue();
      assertThat(f.storedMessages()).as("the stream kept one").isEqualTo(1);

      Thread.sleep(WINDOW.multipliedBy(2).plusMillis(500).toMillis());
      assertThat(f.publish(order, "o-dup").isDuplicate()).as("the same Nats-Msg-Id after the window").isFalse();
      assertThat(f.storedMessages()).as("the stream kept it again").isEqualTo(2);

      OrderLedger ledger = new OrderLedger(OrderLedger.NextStep.NONE);
      RecordingConsumer consumer = f.consumer(ledger, 50, Duration.ofMillis(100));
      RecordingConsumer.runUntilDrained(f, List.of(consumer), Duration.ofSeconds(30));

      assertThat(consumer.deliveries().get("o-dup")).as("both stored copies delivered and acknowledged")
          .containsExactly(new Delivery(1, Settlement.ACK), new Delivery(1, Settlement.ACK));
      assertThat(f.bookings()).containsExactly(Map.entry("o-dup", 1));
      assertThat(ledger.runs()).isEqualTo(1);
      assertThat(f.events(IdempotencyEvent.Type.REPLAYED)).isEqualTo(1);
    }
  }
}
