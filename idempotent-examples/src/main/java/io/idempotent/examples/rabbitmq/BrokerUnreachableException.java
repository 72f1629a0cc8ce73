package io.idempotent.examples.rabbitmq;

/** The broker the demo was asked to use does not answer; the message says where, in one line. */
public class BrokerUnreachableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BrokerUnreachableException(String message) {
    super(message);
  }
}
