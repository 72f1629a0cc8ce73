package io.idempotent.examples;

import io.idempotent.CallOutcome;
import io.idempotent.Idempotency;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/** The smallest useful demo: a retried charge runs once, a reused key is refused. */
public final class Demo {

  static final class Payments {
    final AtomicInteger gatewayCharges = new AtomicInteger();

    @Idempotent(key = "#orderId")
    public String charge(String orderId, long cents) {
      gatewayCharges.incrementAndGet();
      return "receipt for " + orderId + " (" + cents + " cents)";
    }
  }

  public static void main(String[] args) {
    Payments payments = new Payments();
    System.out.println("store: " + Idempotency.global().config().defaultStoreName());
    for (int attempt = 1; attempt <= 3; attempt++) {
      String receipt = payments.charge("order-42", 1999);
      CallOutcome how = Idempotency.lastOutcome();
      System.out.printf("attempt %d: %s [%s]%n", attempt, receipt, how);
    }
    try {
      payments.charge("order-42", 5000);
    } catch (IdempotencyKeyReusedException e) {
      System.out.println("same key, other amount: refused (" + e.getClass().getSimpleName() + ")");
    }
    System.out.printf("calls: 4, gateway charges: %d%n", payments.gatewayCharges.get());
  }

  private Demo() {}
}
