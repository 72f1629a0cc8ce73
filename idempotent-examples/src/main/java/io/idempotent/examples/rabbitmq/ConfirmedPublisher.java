package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;

/**
 * Publishes persistent messages with a message id on a channel in confirm mode: {@link #confirm} returns
 * once the broker has taken responsibility for every message published so far, and throws otherwise (a
 * message is also mandatory: one that reaches no queue is reported), so the publishing side loses nothing
 * silently either. Not thread-safe (one channel).
 */
public final class ConfirmedPublisher implements AutoCloseable {

  private final Channel channel;
  private final Queue<String> returned = new ConcurrentLinkedQueue<>();

  private ConfirmedPublisher(Channel channel) {
    this.channel = channel;
    // a mandatory message no queue took comes back before its confirmation
    channel.addReturnListener(r -> returned.add(String.valueOf(r.getProperties().getMessageId())));
  }

  /** A publisher on a new channel of {@code connection}, in confirm mode. */
  public static ConfirmedPublisher open(Connection connection) throws IOException {
    Channel channel = connection.createChannel();
    channel.confirmSelect();
    return new ConfirmedPublisher(channel);
  }

  /** Publishes {@code body} to {@code queue} (through the default exchange) as message {@code messageId}. */
  public void publish(String queue, String messageId, byte[] body) throws IOException {
    publish(queue, messageId, body, Map.of());
  }

  /** As {@link #publish(String, String, byte[])}, with {@code headers}. */
  public void publish(String queue, String messageId, byte[] body, Map<String, Object> headers)
      throws IOException {
    AMQP.BasicProperties properties = MessageProperties.PERSISTENT_BASIC.builder()
        .messageId(messageId)
        .headers(headers.isEmpty() ? null : headers)
        .build();
    channel.basicPublish("", queue, true, properties, body);
  }

  /**
   * Waits until the broker confirmed every message published so far.
   *
   * @throws IOException when the broker refused one (nack) or did not confirm in time (the channel is
   *     closed then, and the messages must be published again), or when a message reached no queue
   */
  public void confirm(Duration timeout) throws IOException, InterruptedException {
    try {
      channel.waitForConfirmsOrDie(timeout.toMillis());
    } catch (TimeoutException e) {
      throw new IOException("The broker did not confirm the messages within " + timeout, e);
    }
    if (!returned.isEmpty()) {
      throw new IOException("No queue took the messages " + returned);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } catch (TimeoutException e) {
      throw new IOException(e);
    }
  }
}
