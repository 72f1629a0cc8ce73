package io.idempotent.spring.sample;

/** The message a shop publishes when an order is placed: JSON on the orders queue, one per order id. */
public record OrderPlaced(String orderId, String item, int quantity) {}
