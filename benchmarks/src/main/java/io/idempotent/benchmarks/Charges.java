package io.idempotent.benchmarks;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The business method under test, plain and annotated. Compiled by javac and then woven by ajc with
 * {@code idempotent-aspect} as aspect library, exactly as an application's classes are. Counts its
 * executions so that benchmarks can check that a replay never ran the method. Thread-safe.
 */
public class Charges {

  /** Namespaces of the annotated methods; the hand-written baselines build the same key strings. */
  static final String CHARGE = "bench.charge";
  static final String CHARGE_UNCHECKED = "bench.chargeUnchecked";

  final AtomicLong executions = new AtomicLong();

  /** No idempotency: the cost of the call itself. */
  public Receipt plain(String orderId, long cents) {
    executions.incrementAndGet();
    return Receipt.of(orderId, cents);
  }

  @Idempotent(key = "#orderId", name = CHARGE)
  public Receipt charge(String orderId, long cents) {
    executions.incrementAndGet();
    return Receipt.of(orderId, cents);
  }

  /** As {@link #charge} with the argument fingerprint switched off. */
  @Idempotent(key = "#orderId", name = CHARGE_UNCHECKED, checkPayload = false)
  public Receipt chargeUnchecked(String orderId, long cents) {
    executions.incrementAndGet();
    return Receipt.of(orderId, cents);
  }
}
