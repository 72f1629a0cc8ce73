package io.idempotent.woven;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service whose final exceptions are declared as JDK types and thrown as the application's. */
public class CouponService {

  final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "#p0", finalExceptions = IllegalArgumentException.class)
  public String redeem(String coupon) {
    runs.incrementAndGet();
    throw new PaymentRefusals.InvalidCoupon("coupon " + coupon + " expired");
  }

  @Idempotent(key = "#p0", finalExceptions = RuntimeException.class)
  public String charge(String code) {
    runs.incrementAndGet();
    throw new PaymentRefusals.CardDeclined(code);
  }
}
