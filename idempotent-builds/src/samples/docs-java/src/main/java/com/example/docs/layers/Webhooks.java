package com.example.docs.layers;

import io.idempotent.Idempotent;

/** docs/LAYERS.md, webhooks: a provider's event handled once, however often it is delivered. */
public class Webhooks {

  public record ProviderEvent(String id, String orderId, String deliveredAt) {}

  public interface PaidOrders {
    void markPaid(String orderId);
  }

  private final PaidOrders orders;

  public Webhooks(PaidOrders orders) {
    this.orders = orders;
  }

  // README snippet: layers-webhook
}
