package io.idempotent.weaving;

import io.idempotent.Idempotent;

/** Compiled by ajc with this module's aspect, like any woven application class. */
public class WovenOrders {

  @Idempotent(key = "#orderId")
  public String place(String orderId) {
    return "placed " + orderId;
  }

  @Idempotent(key = "'refund:' + #orderId", ttl = "PT1H")
  public static String refund(String orderId, long cents) {
    return "refunded " + cents;
  }
}
