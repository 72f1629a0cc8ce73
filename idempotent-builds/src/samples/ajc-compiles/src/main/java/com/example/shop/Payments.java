package com.example.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/** A service compiled by ajc: its idempotent methods, public and private, are woven as they are compiled. */
public class Payments {

  /** Every charge that ran: counted effects. */
  private final AtomicInteger charges = new AtomicInteger();

  @Idempotent(key = "#orderId")
  public Receipt charge(String orderId, long cents) {
    return new Receipt(orderId, cents, charges.incrementAndGet());
  }

  /** Charges through a private method called on this object. */
  public Receipt chargeWithin(String orderId, long cents) {
    return chargeOnce(orderId, cents);
  }

  @Idempotent(key = "'within:' + #orderId")
  private Receipt chargeOnce(String orderId, long cents) {
    return new Receipt(orderId, cents, charges.incrementAndGet());
  }

  public int charges() {
    return charges.get();
  }
}
