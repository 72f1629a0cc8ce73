package io.idempotent.caffeine.ltw;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ajc-woven twin of the javac-only {@code shop.LoadTimeOrders}: woven when this module's tests are
 * compiled, then run under the AspectJ agent as well, which must not advise it a second time.
 */
public class CompileTimeWovenOrders implements LtwOrders {

  public record Receipt(String orderId, long cents) {}

  private final AtomicInteger charges = new AtomicInteger();
  private final AtomicInteger refunds = new AtomicInteger();

  @Override
  @Idempotent(key = "#orderId")
  public Receipt charge(String orderId, long cents) {
    charges.incrementAndGet();
    return new Receipt(orderId, cents);
  }

  @Override
  public String refundTwice(String orderId) {
    refund(orderId);
    return refund(orderId);
  }

  @Idempotent(key = "#orderId")
  private String refund(String orderId) {
    return "refund-" + orderId + "-" + refunds.incrementAndGet();
  }

  @Override
  public int charges() {
    return charges.get();
  }

  @Override
  public int refunds() {
    return refunds.get();
  }
}
