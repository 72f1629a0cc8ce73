package shop;

import io.idempotent.Idempotent;
import io.idempotent.caffeine.ltw.LtwOrders;
import java.util.concurrent.atomic.AtomicInteger;
import lombok.Value;

/**
 * Compiled by plain javac, with Lombok, at test time (LoadTimeWeavingTest): no weaver runs at build time,
 * so only the AspectJ agent protects its methods, weaving the class as it loads.
 */
public class LoadTimeOrders implements LtwOrders {

  /** Lombok writes the constructor, getters, equals and hashCode; -parameters keeps the names Jackson reads. */
  @Value
  public static class Receipt {
    String orderId;
    long cents;
  }

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
