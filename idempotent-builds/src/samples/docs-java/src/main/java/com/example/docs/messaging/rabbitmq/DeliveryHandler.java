package com.example.docs.messaging.rabbitmq;

import com.rabbitmq.client.AMQP;

/** Handles one delivery; returns when its work is committed. */
@FunctionalInterface
public interface DeliveryHandler {

  void handle(AMQP.BasicProperties properties, byte[] body) throws Exception;
}
