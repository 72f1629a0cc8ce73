package io.idempotent.caffeine.ltw;

/**
 * What {@link LtwChild} drives: a service whose {@code charge} and {@code refundTwice} are protected by
 * {@code @Idempotent} methods, compiled either by plain javac (woven only by the AspectJ agent as it
 * loads) or by ajc.
 */
public interface LtwOrders {

  /** An {@code @Idempotent(key = "#orderId")} method: counts its runs, returns a value object. */
  Object charge(String orderId, long cents);

  /** Calls a private {@code @Idempotent} method of the same instance twice with the same key. */
  String refundTwice(String orderId);

  /** How many times the body of {@code charge} ran. */
  int charges();

  /** How many times the body of the private refund method ran. */
  int refunds();
}
