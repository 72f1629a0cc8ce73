package io.idempotent.examples.shop;

/** What placing an order returns to the client. Immutable. */
public record OrderConfirmation(String orderId, String receiptId, long amountCents) {}
