package io.idempotent.spring.sample;

import java.time.Instant;

/** What placing an order returns; recorded by the idempotent call and replayed to its retries. */
public record Receipt(String orderId, String item, int quantity, Instant placedAt) {}
