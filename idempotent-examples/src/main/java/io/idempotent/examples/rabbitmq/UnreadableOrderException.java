package io.idempotent.examples.rabbitmq;

/**
 * A message body that is not an order. Final for the consumer: every redelivery would fail the same way,
 * so the delivery is rejected to the dead-letter queue instead of requeued.
 */
public class UnreadableOrderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnreadableOrderException(String message, Throwable cause) {
    super(message, cause);
  }
}
