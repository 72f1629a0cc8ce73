package io.idempotent.examples.rabbitmq;

/**
 * A read-only check an order passes before it is booked (credit, fraud), typically a call to another
 * service that may be unavailable for a moment. It writes nothing, so running it again on a redelivery is
 * harmless; an exception it throws is transient: the booking rolls back and the delivery is requeued.
 */
@FunctionalInterface
public interface OrderCheck {

  /** Accepts every order at once. */
  OrderCheck NONE = order -> {};

  /** Returns when {@code order} may be booked; throws when the check could not be made now. */
  void check(Order order);
}
