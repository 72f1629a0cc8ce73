package io.idempotent.examples.batch;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.idempotent.Settlement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Consumes a RabbitMQ queue in batches: manual acknowledgements, {@code basicQos(batchSize)}, and a worker
 * thread that takes up to {@code batchSize} deliveries (or what arrived within {@code linger} of the first),
 * hands them to a {@link BatchHandler}, and settles each delivery after the handler returned, which is after
 * its transaction committed: {@code ACK} acknowledges, {@code REJECT} rejects without requeue (to the queue's
 * dead-letter exchange), {@code REQUEUE} nacks with requeue. When the handler throws, nothing of the batch was
 * committed and every delivery of it is requeued. Thread-safe; counts what it did.
 */
public final class RabbitBatchConsumer implements AutoCloseable {

  /** A delivery waiting for its batch. */
  private record Received(long tag, IncomingOrder order) {}

  private final Channel channel;
  private final int batchSize;
  private final Duration linger;
  private final BatchHandler handler;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
  private final Thread worker;
  private volatile boolean stopping;
  private volatile String tag = "";
  private final AtomicInteger deliveries = new AtomicInteger();
  private final AtomicInteger redelivered = new AtomicInteger();
  private final AtomicInteger acked = new AtomicInteger();
  private final AtomicInteger rejected = new AtomicInteger();
  private final AtomicInteger requeued = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger requeuedBatches = new AtomicInteger();
  private final Map<String, AtomicInteger> deliveriesByMessageId = new ConcurrentHashMap<>();

  private RabbitBatchConsumer(Channel channel, int batchSize, Duration linger, BatchHandler handler) {
    this.channel = channel;
    this.batchSize = batchSize;
    this.linger = linger;
    this.handler = handler;
    this.worker = new Thread(this::work, "rabbit-batch-consumer");
    this.worker.setDaemon(true);
  }

  /**
   * Starts consuming {@code queue} on a new channel of {@code connection}, with at most {@code batchSize}
   * unacknowledged deliveries, in batches of up to {@code batchSize}.
   */
  public static RabbitBatchConsumer start(Connection connection, String queue, int batchSize, Duration linger,
      BatchHandler handler) throws IOException {
    Channel channel = connection.createChannel();
    channel.basicQos(batchSize);
    RabbitBatchConsumer consumer = new RabbitBatchConsumer(channel, batchSize, linger, handler);
    consumer.worker.start();
    consumer.tag = channel.basicConsume(queue, false, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
          byte[] body) {
        consumer.deliveries.incrementAndGet();
        if (envelope.isRedeliver()) {
          consumer.redelivered.incrementAndGet();
        }
        String messageId = properties.getMessageId();
        consumer.deliveriesByMessageId.computeIfAbsent(String.valueOf(messageId), k -> new AtomicInteger())
            .incrementAndGet();
        consumer.received.add(new Received(envelope.getDeliveryTag(),
            new IncomingOrder(messageId, new String(body, StandardCharsets.UTF_8))));
      }
    });
    return consumer;
  }

  private void work() {
    List<Received> batch = new ArrayList<>(batchSize);
    while (!stopping || !received.isEmpty()) {
      try {
        Received first = received.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        long deadline = System.nanoTime() + linger.toNanos();
        while (batch.size() < batchSize) {
          Received next = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (next == null) {
            break;
          }
          batch.add(next);
        }
        handle(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.clear();
      }
    }
  }

  private void handle(List<Received> batch) {
    batches.incrementAndGet();
    List<IncomingOrder> orders = new ArrayList<>(batch.size());
    for (Received r : batch) {
      orders.add(r.order());
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
      settle(batch.get(i).tag(), settlements.get(i));
    }
  }

  private void settle(long deliveryTag, Settlement settlement) {
    try {
      switch (settlement) {
        case ACK -> {
          channel.basicAck(deliveryTag, false);
          acked.incrementAndGet();
        }
        case REJECT -> {
          channel.basicReject(deliveryTag, false); // to the dead-letter queue
          rejected.incrementAndGet();
        }
        case REQUEUE -> {
          channel.basicNack(deliveryTag, false, true);
          requeued.incrementAndGet();
        }
      }
    } catch (IOException | RuntimeException e) {
      // the channel is gone: the broker delivers the message again, and the redelivery replays its record
    }
  }

  /**
   * Stops consuming, lets the deliveries already received be handled and settled (for at most
   * {@code timeout}), then closes the channel; a delivery still unacknowledged goes back to the queue.
   */
  public void close(Duration timeout) throws IOException, InterruptedException {
    try {
      if (channel.isOpen() && !tag.isEmpty()) {
        channel.basicCancel(tag);
      }
    } finally {
      stopping = true;
      worker.join(timeout.toMillis());
      if (worker.isAlive()) {
        worker.interrupt();
        worker.join(timeout.toMillis());
      }
      try {
        if (channel.isOpen()) {
          channel.close();
        }
      } catch (TimeoutException e) {
        throw new IOException(e);
      }
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
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

  public int rejected() {
    return rejected.get();
  }

  public int requeued() {
    return requeued.get();
  }

  /** Batches handled. */
  public int batches() {
    return batches.get();
  }

  /** Batches whose every delivery was requeued because the handler threw. */
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
    return String.format("deliveries %d (redelivered %d), acked %d, rejected %d, requeued %d, batches %d"
        + " (requeued whole %d)", deliveries(), redelivered(), acked(), rejected(), requeued(), batches(),
        requeuedBatches());
  }
}
