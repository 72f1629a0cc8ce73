package io.idempotent.woven;

import java.time.Instant;

public record Receipt(String orderId, long amount, Instant at) {}
