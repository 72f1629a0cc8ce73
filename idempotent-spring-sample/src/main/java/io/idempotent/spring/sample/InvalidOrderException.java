package io.idempotent.spring.sample;

/**
 * An order that can never be shipped (no quantity to ship): a business outcome, not a glitch, so
 * {@link Shipments#ship} declares it final. It is recorded and replayed to every redelivery of the order,
 * and the listener dead-letters the message instead of requeueing it. The public {@code (String)}
 * constructor lets the library recreate it on replay.
 */
public class InvalidOrderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidOrderException(String message) {
    super(message);
  }
}
