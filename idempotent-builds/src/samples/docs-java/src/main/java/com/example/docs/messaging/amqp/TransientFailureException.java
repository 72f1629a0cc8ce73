package com.example.docs.messaging.amqp;

/** A remote service that did not answer: a later delivery may succeed. */
public class TransientFailureException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public TransientFailureException(String message) {
    super(message);
  }
}
