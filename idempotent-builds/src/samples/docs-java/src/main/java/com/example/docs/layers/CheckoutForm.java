package com.example.docs.layers;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.OneTimeTokens;
import java.time.Duration;

/** docs/LAYERS.md, one-time tokens: a form's token issued when it is shown, consumed when it is sent. */
public class CheckoutForm {

  public record Order(String sku) {}

  public interface PlacedOrders {
    void place(Order order);
  }

  private final PlacedOrders orders;

  public CheckoutForm(PlacedOrders orders) {
    this.orders = orders;
  }

  // README snippet: layers-tokens
}
