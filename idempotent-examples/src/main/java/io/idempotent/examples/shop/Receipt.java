package io.idempotent.examples.shop;

/** What the payment gateway returns for a successful charge. Immutable. */
public record Receipt(String receiptId, String reference, long amountCents) {}
