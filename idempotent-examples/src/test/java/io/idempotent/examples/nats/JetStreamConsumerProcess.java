package io.idempotent.examples.nats;

import io.idempotent.IdempotencyEvent;
import io.idempotent.Settlement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer JVM of the recipe, for {@link JetStreamCrashTest}: it runs one {@link JetStreamOrderConsumer}
 * on an existing stream, durable consumer and schema until the consumer is drained, printing each
 * settled delivery, and then its counts. With a pause point it stops for a minute at the n-th message,
 * either inside the transaction (the booking written, not committed) or between the commit and the ack,
 * and says so on a line of its own: the test kills it there.
 *
 * <p>Arguments: stream, subject, durable consumer, schema, pause point ({@code none}, {@code
 * in-transaction}, {@code before-ack}), n.
 */
public final class JetStreamConsumerProcess {

  private JetStreamConsumerProcess() {}

  public static void main(String[] args) throws Exception {
    String pause = args[4];
    int pauseAt = Integer.parseInt(args[5]);
    AtomicInteger booked = new AtomicInteger();
    AtomicInteger acked = new AtomicInteger();
    try (JetStreamFixture f = JetStreamFixture.attach(args[0], args[1], args[2], args[3])) {
      OrderLedger ledger = new OrderLedger(order -> {
        if (pause.equals("in-transaction") && booked.incrementAndGet() == pauseAt) {
          pauseHere(order.id());
        }
      });
      RecordingConsumer consumer = f.consumer(ledger, 50, Duration.ofMillis(200));
      consumer.beforeSettle((msg, settlement) -> {
        String id = RecordingConsumer.orderId(msg);
        if (pause.equals("before-ack") && settlement == Settlement.ACK && acked.incrementAndGet() == pauseAt) {
          pauseHere(id);
        }
        System.out.println("SETTLED " + id + " " + msg.metaData().deliveredCount() + " " + settlement);
      });
      consumer.runUntil(() -> {
        try {
          return f.drained();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      consumer.close();
      System.out.println("DONE runs=" + ledger.runs()
          + " replayed=" + f.events(IdempotencyEvent.Type.REPLAYED)
          + " acked=" + consumer.acked());
    }
    System.exit(0);
  }

  private static void pauseHere(String orderId) {
    System.out.println("PAUSED " + orderId);
    System.out.flush();
    JetStreamConsumerTest.sleep(Duration.ofMinutes(1));
    throw new IllegalStateException("not killed within a minute");
  }
}
