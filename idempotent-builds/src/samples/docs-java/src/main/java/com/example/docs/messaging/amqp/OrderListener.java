package com.example.docs.messaging.amqp;

import io.idempotent.Settlement;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;

/** docs/MESSAGING.md, Spring AMQP: settles each delivery by what it throws. */
@Component
public class OrderListener {

  private final Shipments shipments;

  public OrderListener(Shipments shipments) {
    this.shipments = shipments;
  }

  // README snippet: spring-amqp-listener
}
