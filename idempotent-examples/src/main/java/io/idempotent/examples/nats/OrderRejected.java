package io.idempotent.examples.nats;

/**
 * The order cannot be accepted, now or on any redelivery: a business outcome. The handler declares it
 * final, so it is recorded with the order's key and replayed to every later copy, and the consumer
 * terminates the message instead of asking for a redelivery. The public {@code (String)} constructor
 * lets the library recreate it on replay.
 */
public class OrderRejected extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OrderRejected(String message) {
    super(message);
  }
}
