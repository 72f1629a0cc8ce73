package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Map;

/**
 * A durable queue whose rejected messages go to a dead-letter queue of its own (through the default
 * exchange), where they stay for a person or a repair job to look at. Immutable.
 *
 * @param name the queue consumers read
 * @param deadLetterName the queue rejected messages end up in
 */
public record DeadLetteredQueue(String name, String deadLetterName) {

  /** {@code name}, with {@code name + ".dead"} as its dead-letter queue. */
  public static DeadLetteredQueue named(String name) {
    return new DeadLetteredQueue(name, name + ".dead");
  }

  /** Declares both queues (again: declaring is idempotent for the same arguments). */
  public DeadLetteredQueue declare(Channel channel) throws IOException {
    channel.queueDeclare(deadLetterName, true, false, false, null);
    channel.queueDeclare(name, true, false, false,
        Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", deadLetterName));
    return this;
  }

  /** Deletes both queues and the messages in them. */
  public void delete(Channel channel) throws IOException {
    channel.queueDelete(name);
    channel.queueDelete(deadLetterName);
  }

  /** Messages ready in the queue (not those delivered and unacknowledged). */
  public long ready(Channel channel) throws IOException {
    return channel.messageCount(name);
  }

  /** Messages in the dead-letter queue. */
  public long deadLettered(Channel channel) throws IOException {
    return channel.messageCount(deadLetterName);
  }
}
