package com.example.docs.usage;

public interface PaymentGateway {
  Receipt charge(String orderId, long cents);
}
