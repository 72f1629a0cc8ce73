package io.idempotent.examples.rabbitmq;

import io.idempotent.testservers.TestServers;

/** The project's test broker ({@link TestServers#RABBITMQ}) as the recipe's {@link RabbitBroker}. */
final class TestBroker {

  private TestBroker() {}

  /** A new {@link RabbitBroker} for the test broker; skips the test when it does not answer. */
  static RabbitBroker reach() {
    TestServers.RABBITMQ.requireReachable();
    return new RabbitBroker(uri());
  }

  /** The test broker's URI, with RabbitMQ's stock account. */
  static String uri() {
    return "amqp://guest:guest@" + TestServers.RABBITMQ.host + ":" + TestServers.RABBITMQ.port;
  }
}
