package com.example.docs.messaging.rabbitmq;

/** A body that is not an order: no delivery of it can be read. */
public class UnreadableOrderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UnreadableOrderException(String message, Throwable cause) {
    super(message, cause);
  }
}
