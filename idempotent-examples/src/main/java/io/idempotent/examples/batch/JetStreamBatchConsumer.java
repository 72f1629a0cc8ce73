package io.idempotent.examples.batch;

import io.idempotent.Settlement;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Consumes a NATS JetStream pull consumer in batches: a worker thread fetches up to {@code batchSize}
 * messages ({@code fetch(batchSize, maxWait)}), hands them to a {@link BatchHandler}, and settles each after
 * the handler returned, which is after its transaction committed: {@code ACK} acks, {@code REJECT} terms it
 * (never redelivered), {@code REQUEUE} naks it (redelivered now). When the handler throws, nothing of the
 * batch was committed and every message of it is nak'ed. The consumer must use explicit acks, with an ack
 * wait longer than a batch takes. Thread-safe; counts what it did.
 *
 * <p>The idempotency key is the {@value #MESSAGE_ID} header the publisher sets. (The stream's own
 * {@code Nats-Msg-Id} deduplication drops a publisher's retries within its window; a redelivery to the
 * consumer is another matter, and that is what the batch's records answer.)
 */
public final class JetStreamBatchConsumer implements AutoCloseable {

  /** The header carrying the message id. */
  public static final String MESSAGE_ID = "Message-Id";

  private final JetStreamSubscription subscription;
  private final int batchSize;
  private final Duration maxWait;
  private final BatchHandler handler;
  private final Thread worker;
  private volatile boolean stopping;
  private final AtomicInteger deliveries = new AtomicInteger();
  private final AtomicInteger redelivered = new AtomicInteger();
  private final AtomicInteger acked = new AtomicInteger();
  private final AtomicInteger terminated = new AtomicInteger();
  private final AtomicInteger naked = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger requeuedBatches = new AtomicInteger();
  private final Map<String, AtomicInteger> deliveriesByMessageId = new ConcurrentHashMap<>();

  private JetStreamBatchConsumer(JetStreamSubscription subscription, int batchSize, Duration maxWait,
      BatchHandler handler) {
    this.subscription = subscription;
    this.batchSize = batchSize;
    this.maxWait = maxWait;
    this.handler = handler;
    this.worker = new Thread(this::work, "jetstream-batch-consumer");
    this.worker.setDaemon(true);
  }

  /**
   * Starts fetching from the durable pull consumer {@code durable} of {@code stream} (filtered on
   * {@code subject}), up to {@code batchSize} messages at a time, waiting at most {@code maxWait} for a
   * batch to fill.
   */
  public static JetStreamBatchConsumer start(Connection connection, String stream, String durable, String subject,
      int batchSize, Duration maxWait, BatchHandler handler) throws IOException, JetStreamApiException {
    JetStreamSubscription subscription =
        connection.jetStream().subscribe(subject, PullSubscribeOptions.bind(stream, durable));
    JetStreamBatchConsumer consumer = new JetStreamBatchConsumer(subscription, batchSize, maxWait, handler);
    consumer.worker.start();
    return consumer;
  }

  private void work() {
    while (!stopping) {
      List<Message> batch;
      try {
        batch = subscription.fetch(batchSize, maxWait);
      } catch (RuntimeException e) {
        if (stopping) {
          return;
        }
        sleepAfterFailure();
        continue;
      }
      if (!batch.isEmpty()) {
        handle(batch);
      }
    }
  }

  private void handle(List<Message> batch) {
    batches.incrementAndGet();
    List<IncomingOrder> orders = new ArrayList<>(batch.size());
    for (Message m : batch) {
      deliveries.incrementAndGet();
      if (m.metaData().deliveredCount() > 1) {
        redelivered.incrementAndGet();
      }
      String messageId = messageId(m);
      deliveriesByMessageId.computeIfAbsent(String.valueOf(messageId), k -> new AtomicInteger()).incrementAndGet();
      orders.add(new IncomingOrder(messageId, new String(m.getData(), StandardCharsets.UTF_8)));
    }
    List<Settlement> settlements;
    try {
      settlements = handler.handle(orders);
    } catch (Exception e) {
      // nothing of the batch committed (a transient failure rolled it back, or the database failed)
      requeuedBatches.incrementAndGet();
      settlements = new ArrayList<>(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        settlements.add(Settlement.REQUEUE);
      }
    }
    for (int i = 0; i < batch.size(); i++) {
      settle(batch.get(i), settlements.get(i));
    }
  }

  private void settle(Message message, Settlement settlement) {
    try {
      switch (settlement) {
        case ACK -> {
          message.ack();
          acked.incrementAndGet();
        }
        case REJECT -> {
          message.term(); // never delivered again
          terminated.incrementAndGet();
        }
        case REQUEUE -> {
          message.nak();
          naked.incrementAndGet();
        }
      }
    } catch (RuntimeException e) {
      // the connection is gone: the message is delivered again after its ack wait, and replays its record
    }
  }

  private static @Nullable String messageId(Message m) {
    Headers headers = m.getHeaders();
    return headers == null ? null : headers.getFirst(MESSAGE_ID);
  }

  private static void sleepAfterFailure() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops fetching, lets the batch in hand be handled and settled (for at most {@code timeout}), then unsubscribes. */
  public void close(Duration timeout) throws InterruptedException {
    stopping = true;
    worker.join(timeout.toMillis());
    if (worker.isAlive()) {
      worker.interrupt();
      worker.join(timeout.toMillis());
    }
    subscription.unsubscribe();
  }

  @Override
  public void close() throws InterruptedException {
    close(Duration.ofSeconds(30));
  }

  public int deliveries() {
    return deliveries.get();
  }

  public int redelivered() {
    return redelivered.get();
  }

  public int acked() {
    return acked.get();
  }

  public int terminated() {
    return terminated.get();
  }

  public int naked() {
    return naked.get();
  }

  public int batches() {
    return batches.get();
  }

  public int requeuedBatches() {
    return requeuedBatches.get();
  }

  /** How many times the message with {@code messageId} was delivered to this consumer. */
  public int deliveriesOf(String messageId) {
    AtomicInteger n = deliveriesByMessageId.get(messageId);
    return n == null ? 0 : n.get();
  }

  @Override
  public String toString() {
    return String.format("deliveries %d (redelivered %d), acked %d, terminated %d, nak'ed %d, batches %d"
        + " (requeued whole %d)", deliveries(), redelivered(), acked(), terminated(), naked(), batches(),
        requeuedBatches());
  }
}
