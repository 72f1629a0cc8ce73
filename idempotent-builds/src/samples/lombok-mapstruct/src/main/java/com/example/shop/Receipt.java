package com.example.shop;

import lombok.Value;

/** What an order's charge returns: the recorded result, a Lombok value class built by the MapStruct mapper. */
@Value
public class Receipt {
  String orderId;
  String customer;
  long cents;
  /** Which run of the charge made this receipt: a replay keeps the first one's. */
  int run;
}
