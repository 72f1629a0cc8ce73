package com.example.shop;

import io.idempotent.Idempotent;

/** The README's opening example, its method as printed. */
public class Checkout {
  private final MoneyGateway gateway;

  public Checkout(MoneyGateway gateway) {
    this.gateway = gateway;
  }

  // README snippet: teaser
}
