package io.idempotent.examples.nats;

import io.idempotent.Settlement;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Jdbi;

/**
 * A JetStream pull consumer of "order placed" events (docs/MESSAGING.md, NATS JetStream): it fetches a
 * batch, books each order through {@link OrderLedger#book} in a transaction of its own, and settles the
 * message only after that transaction ended: {@code ack} after the commit, {@code term} for a final
 * outcome (never redelivered), {@code nakWithDelay} for a failure a later delivery may not meet.
 *
 * <p>The store must be a JDBI table store on the same {@link Jdbi}, in a joined mode, so that the
 * booking and the idempotency record commit together: a redelivery after a crash between the commit and
 * the ack replays, a crash before the commit left nothing, and the redelivery books.
 *
 * <p>One instance is used by one thread; run several instances (threads, processes) on the same durable
 * consumer to share its messages. The counters may be read from any thread.
 */
public class JetStreamOrderConsumer {

  /** How long one fetch waits for its batch to fill. */
  static final Duration FETCH_WAIT = Duration.ofSeconds(1);

  private final JetStreamSubscription subscription;
  private final Jdbi jdbi;
  private final OrderLedger ledger;
  private final int batchSize;
  private final Duration requeueDelay;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong terminated = new AtomicLong();
  private final AtomicLong requeued = new AtomicLong();

  /**
   * A consumer of the durable pull consumer {@code durable} of {@code stream}, booking through {@code
   * ledger} in transactions on {@code jdbi}, fetching up to {@code batchSize} messages at a time, and
   * asking for a failed delivery again after {@code requeueDelay}.
   */
  public JetStreamOrderConsumer(JetStream js, String stream, String durable, Jdbi jdbi, OrderLedger ledger,
      int batchSize, Duration requeueDelay) throws IOException, JetStreamApiException {
    this.subscription = js.subscribe(null, PullSubscribeOptions.bind(stream, durable));
    this.jdbi = jdbi;
    this.ledger = ledger;
    this.batchSize = batchSize;
    this.requeueDelay = requeueDelay;
  }

  /**
   * The durable pull consumer's configuration: explicit acknowledgements; a delivery not settled within
   * {@code ackWait} is delivered again; no message is delivered more than {@code maxDeliver} times.
   */
  public static ConsumerConfiguration configuration(String durable, String subject, Duration ackWait,
      long maxDeliver) {
    return ConsumerConfiguration.builder()
        .durable(durable)
        .filterSubject(subject)
        .ackPolicy(AckPolicy.Explicit)
        .ackWait(ackWait)
        .maxDeliver(maxDeliver)
        .build();
  }

  /** Fetches and settles batches until {@code stop} says so (it is asked between batches). */
  public void runUntil(BooleanSupplier stop) {
    while (!stop.getAsBoolean()) {
      fetchBatch();
    }
  }

  /**
   * Fetches one batch (up to the batch size, waiting at most {@link #FETCH_WAIT}) and handles and settles
   * each message in turn. Returns how many messages it fetched.
   */
  public int fetchBatch() {
    List<Message> batch = subscription.fetch(batchSize, FETCH_WAIT);
    for (Message msg : batch) {
      settle(msg, handle(msg));
    }
    return batch.size();
  }

  /**
   * Books the message's order in a transaction and says how to settle the delivery; when this returns,
   * that transaction has committed (ACK, REJECT of a recorded rejection) or rolled back (REQUEUE).
   */
  public Settlement handle(Message msg) {
    Order order;
    try {
      order = Order.fromJson(msg.getData());
    } catch (IOException unreadable) {
      return Settlement.REJECT; // no delivery of this body can be read
    }
    try {
      return jdbi.inTransaction(h -> {
        try {
          ledger.book(h, order);
          return Settlement.ACK;
        } catch (OrderRejected rejected) {
          // a final outcome: the transaction commits with its record, so every later copy replays it
          return Settlement.of(rejected, OrderRejected.class);
        }
      });
    } catch (RuntimeException e) {
      return Settlement.of(e, OrderRejected.class); // rolled back: neither the booking nor the claim
    }
  }

  /** Settles a delivery after its transaction ended. */
  protected void settle(Message msg, Settlement settlement) {
    switch (settlement) {
      case ACK -> {
        msg.ack();
        acked.incrementAndGet();
      }
      case REJECT -> {
        msg.term(); // never delivered again, whatever MaxDeliver allows
        terminated.incrementAndGet();
      }
      case REQUEUE -> {
        msg.nakWithDelay(requeueDelay); // delivered again after the delay, up to MaxDeliver deliveries
        requeued.incrementAndGet();
      }
    }
  }

  /** The deliveries this instance acknowledged. */
  public long acked() {
    return acked.get();
  }

  /** The deliveries this instance terminated. */
  public long terminated() {
    return terminated.get();
  }

  /** The deliveries this instance asked to be delivered again. */
  public long requeued() {
    return requeued.get();
  }

  /** The ledger this consumer books through. */
  public OrderLedger ledger() {
    return ledger;
  }

  /** Stops fetching; messages fetched and not settled are delivered again after their AckWait. */
  public void close() {
    subscription.unsubscribe();
  }
}
