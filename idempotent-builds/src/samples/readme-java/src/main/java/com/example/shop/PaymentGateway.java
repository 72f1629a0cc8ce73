package com.example.shop;

/** The payment provider the README's {@code Payments} charges through. */
public interface PaymentGateway {
  Receipt charge(String orderId, long cents);
}
