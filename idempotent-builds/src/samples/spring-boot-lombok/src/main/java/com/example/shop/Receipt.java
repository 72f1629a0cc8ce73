package com.example.shop;

import lombok.Value;

/** What a charge returns: the recorded result. */
@Value
public class Receipt {
  String orderId;
  long cents;
  /** Which run of the charge made this receipt: a replay keeps the first one's. */
  int run;
}
