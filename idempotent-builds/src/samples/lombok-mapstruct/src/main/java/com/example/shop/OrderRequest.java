package com.example.shop;

import lombok.Value;

/** What a client sends to place an order: the argument of the idempotent calls, a Lombok value class. */
@Value
public class OrderRequest {
  String id;
  String customer;
  long cents;
}
