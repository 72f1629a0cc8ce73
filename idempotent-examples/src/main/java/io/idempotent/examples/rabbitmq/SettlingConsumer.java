package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.idempotent.Settlement;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Consumes a queue with manual acknowledgements ({@code autoAck = false}) and settles every delivery after
 * its handler ended: acknowledged when the handler returned, rejected without requeue (to the queue's
 * dead-letter exchange) or requeued as {@link Settlement#of} judges its exception. Nothing is acknowledged
 * before the handler returned, so a consumer that dies or loses its connection leaves its unacknowledged
 * deliveries to the broker, which delivers them again. Thread-safe; counts what it did.
 *
 * <p>Each channel has its own {@code basicQos} prefetch; the client runs one channel's deliveries one after
 * the other, so {@code channels} is the number of deliveries handled at once.
 */
public final class SettlingConsumer implements AutoCloseable {

  private final DeliveryHandler handler;
  private final Class<? extends Throwable>[] finalExceptions;
  private final List<Channel> channels = new ArrayList<>();
  private final List<String> tags = new ArrayList<>();
  private final CountDownLatch cancelled;
  private final AtomicInteger deliveries = new AtomicInteger();
  private final AtomicInteger redelivered = new AtomicInteger();
  private final AtomicInteger acked = new AtomicInteger();
  private final AtomicInteger rejected = new AtomicInteger();
  private final AtomicInteger requeued = new AtomicInteger();
  private final AtomicInteger unsettled = new AtomicInteger();
  private final Map<String, AtomicInteger> deliveriesByMessageId = new ConcurrentHashMap<>();

  private SettlingConsumer(DeliveryHandler handler, int channelCount, Class<? extends Throwable>[] finalExceptions) {
    this.handler = handler;
    this.finalExceptions = finalExceptions.clone();
    this.cancelled = new CountDownLatch(channelCount);
  }

  /**
   * Starts consuming {@code queue} on {@code channelCount} new channels of {@code connection}, each with at
   * most {@code prefetch} unacknowledged deliveries.
   *
   * @param finalExceptions the exceptions no redelivery can cure: the handler's declared final exceptions,
   *     and any it throws before its idempotent method (an unreadable body)
   */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is copied and only read
  public static SettlingConsumer start(Connection connection, String queue, int channelCount, int prefetch,
      DeliveryHandler handler, Class<? extends Throwable>... finalExceptions) throws IOException {
    SettlingConsumer consumer = new SettlingConsumer(handler, channelCount, finalExceptions);
    for (int i = 0; i < channelCount; i++) {
      Channel channel = connection.createChannel();
      channel.basicQos(prefetch);
      consumer.channels.add(channel);
      consumer.tags.add(channel.basicConsume(queue, false, consumer.new ChannelConsumer(channel)));
    }
    return consumer;
  }

  private final class ChannelConsumer extends DefaultConsumer {

    ChannelConsumer(Channel channel) {
      super(channel);
    }

    @Override
    public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
        byte[] body) throws IOException {
      deliveries.incrementAndGet();
      if (envelope.isRedeliver()) {
        redelivered.incrementAndGet();
      }
      String messageId = properties.getMessageId();
      if (messageId != null) {
        deliveriesByMessageId.computeIfAbsent(messageId, id -> new AtomicInteger()).incrementAndGet();
      }
      Throwable failure = null;
      try {
        handler.handle(properties, body);
      } catch (Exception e) { // every failure is settled; none escapes to the client library
        failure = e;
      }
      settle(getChannel(), envelope.getDeliveryTag(), Settlement.of(failure, finalExceptions));
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      cancelled.countDown(); // every delivery before the cancellation has been handled and settled
    }
  }

  private void settle(Channel channel, long tag, Settlement settlement) {
    try {
      switch (settlement) {
        case ACK -> channel.basicAck(tag, false);
        case REJECT -> channel.basicReject(tag, false); // to the dead-letter exchange
        case REQUEUE -> channel.basicNack(tag, false, true);
      }
    } catch (IOException | RuntimeException e) {
      // the channel or its connection is gone: the broker delivers the message again, and the handler's
      // recorded outcome (if it committed) is replayed then
      unsettled.incrementAndGet();
      return;
    }
    switch (settlement) {
      case ACK -> acked.incrementAndGet();
      case REJECT -> rejected.incrementAndGet();
      case REQUEUE -> requeued.incrementAndGet();
    }
  }

  /** Deliveries handed to the handler, redeliveries included. */
  public int deliveries() {
    return deliveries.get();
  }

  /** Deliveries the broker marked as redelivered: requeued, or unacknowledged when a channel closed. */
  public int redelivered() {
    return redelivered.get();
  }

  public int acked() {
    return acked.get();
  }

  /** Deliveries rejected without requeue: dead-lettered where the queue has a dead-letter exchange. */
  public int rejected() {
    return rejected.get();
  }

  public int requeued() {
    return requeued.get();
  }

  /** Deliveries whose settlement could not be sent: their channel closed first; the broker redelivers them. */
  public int unsettled() {
    return unsettled.get();
  }

  /** Deliveries of the messages with {@code messageId}, redeliveries included. */
  public int deliveriesOf(@Nullable String messageId) {
    AtomicInteger n = messageId == null ? null : deliveriesByMessageId.get(messageId);
    return n == null ? 0 : n.get();
  }

  /**
   * Stops consuming: cancels the consumers, lets the deliveries already received finish and settle (for at
   * most {@code timeout}), then closes the channels. The connection stays open.
   */
  public void close(Duration timeout) throws IOException, InterruptedException {
    for (int i = 0; i < channels.size(); i++) {
      Channel channel = channels.get(i);
      if (channel.isOpen()) {
        channel.basicCancel(tags.get(i));
      } else {
        cancelled.countDown();
      }
    }
    cancelled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    for (Channel channel : channels) {
      try {
        channel.close(); // unacknowledged deliveries, if any, go back to the queue
      } catch (IOException | RuntimeException | TimeoutException e) {
        // already closed with its connection: nothing left to settle on it
      }
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    close(Duration.ofSeconds(30));
  }
}
