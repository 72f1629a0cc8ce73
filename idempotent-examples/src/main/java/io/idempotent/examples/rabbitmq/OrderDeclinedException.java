package io.idempotent.examples.rabbitmq;

/**
 * The order was declined: a business outcome, not a failure to retry. Declared in {@code finalExceptions},
 * so it is recorded like a value and a redelivery replays it without booking; the consumer rejects the
 * delivery to the dead-letter queue. Rebuilt on replay through its {@code (String)} constructor.
 */
public class OrderDeclinedException extends Exception {
  private static final long serialVersionUID = 1L;

  public OrderDeclinedException(String message) {
    super(message);
  }
}
