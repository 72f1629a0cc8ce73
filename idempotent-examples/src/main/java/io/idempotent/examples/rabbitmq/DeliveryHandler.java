package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.AMQP;

/** What a {@link SettlingConsumer} does with one delivery; it returns only once the work is durable. */
@FunctionalInterface
public interface DeliveryHandler {

  /**
   * Handles one delivery. Returning means "acknowledge": whatever the handler wrote must be committed by
   * then. Throwing lets {@link io.idempotent.Settlement} decide between rejecting and requeueing.
   */
  void handle(AMQP.BasicProperties properties, byte[] body) throws Exception;
}
