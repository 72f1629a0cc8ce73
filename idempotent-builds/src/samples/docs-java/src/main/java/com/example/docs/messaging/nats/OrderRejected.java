package com.example.docs.messaging.nats;

/** An order that cannot be booked: final, recorded and replayed. */
public class OrderRejected extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public OrderRejected(String message) {
    super(message);
  }
}
