package com.example.docs.spring;

public interface OrderRows {
  Receipt insert(String orderId, Cart cart);
}
