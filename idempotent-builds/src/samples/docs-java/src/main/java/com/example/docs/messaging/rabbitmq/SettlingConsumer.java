package com.example.docs.messaging.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.idempotent.Settlement;
import java.io.IOException;

/** docs/MESSAGING.md, RabbitMQ: settles each delivery after its handler ended. */
public final class SettlingConsumer extends DefaultConsumer {

  private final DeliveryHandler handler;

  public SettlingConsumer(Channel channel, DeliveryHandler handler) {
    super(channel);
    this.handler = handler;
  }

  // README snippet: rabbitmq-consumer
}
