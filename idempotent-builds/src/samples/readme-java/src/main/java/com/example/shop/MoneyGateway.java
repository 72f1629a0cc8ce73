package com.example.shop;

/** The payment provider the README's opening example charges through. */
public interface MoneyGateway {
  Receipt charge(String orderId, Money amount);
}
