package io.idempotent.examples.shop;

/**
 * A message from a broker that delivers at least once. Immutable.
 *
 * @param id the message id, the same on every redelivery
 * @param orderId the order to ship
 * @param deliveryCount which delivery this is; it differs between redeliveries
 */
public record Message(String id, String orderId, int deliveryCount) {}
