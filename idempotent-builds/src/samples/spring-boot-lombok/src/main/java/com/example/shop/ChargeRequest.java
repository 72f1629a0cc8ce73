package com.example.shop;

import lombok.Value;

/** A charge a client asks for. */
@Value
public class ChargeRequest {
  String orderId;
  long cents;
}
