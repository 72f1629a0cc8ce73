package com.example.docs.messaging.amqp;

/** An order that cannot be shipped: final, recorded and replayed. */
public class InvalidOrderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidOrderException(String message) {
    super(message);
  }
}
