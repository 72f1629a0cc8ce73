package com.example.docs.messaging.amqp;

/** The warehouse told to pick a shipment; may fail with {@link TransientFailureException}. */
public interface Warehouse {

  void call();
}
