package io.idempotent.examples.shop;

/**
 * A payment provider's callback. Immutable.
 *
 * @param id the provider's event id, the same on every delivery of the event
 * @param orderId the order that was paid
 * @param customer who paid
 * @param amountCents how much
 * @param attempt which delivery this is; it differs between deliveries of one event
 */
public record ProviderEvent(String id, String orderId, String customer, long amountCents, int attempt) {}
