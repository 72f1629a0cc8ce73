package io.idempotent.benchmarks;

/** The small result every benchmarked call returns (and every store records). Immutable. */
public record Receipt(String orderId, long cents, String status) {

  static Receipt of(String orderId, long cents) {
    return new Receipt(orderId, cents, "CHARGED");
  }
}
