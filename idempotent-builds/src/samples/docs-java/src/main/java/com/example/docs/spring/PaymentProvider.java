package com.example.docs.spring;

public interface PaymentProvider {
  Charge charge(String orderId, Money total);
}
