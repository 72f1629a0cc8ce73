package com.example.docs.messaging.rabbitmq;

import com.rabbitmq.client.AMQP;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** docs/MESSAGING.md, RabbitMQ: reads the order and books it in a transaction of its own. */
public final class OrderIntake implements DeliveryHandler {

  private final Jdbi jdbi;
  private final OrderBook book;

  /** @param jdbi the store's {@code Jdbi} */
  public OrderIntake(Jdbi jdbi, OrderBook book) {
    this.jdbi = jdbi;
    this.book = book;
  }

  // README snippet: rabbitmq-intake
}
