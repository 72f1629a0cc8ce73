package com.example.docs.redis;

import io.idempotent.Idempotent;

/** idempotent-redis's README: a method annotated as on any store. */
public class Payments {

  public record Money(long cents, String currency) {}

  public record Receipt(String orderId, Money amount) {}

  public interface PaymentProvider {
    Receipt charge(String orderId, Money amount);
  }

  private final PaymentProvider provider;

  public Payments(PaymentProvider provider) {
    this.provider = provider;
  }

  // README snippet: redis-annotate
}
