package com.example.docs.messaging.rabbitmq;

/** An order over the limit: final, recorded and replayed. */
public class OrderDeclinedException extends Exception {

  private static final long serialVersionUID = 1L;

  public OrderDeclinedException(String message) {
    super(message);
  }
}
