package com.example.docs.layers;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;

/** docs/LAYERS.md, message consumers: a redelivered message handled once. */
public class Consumer {

  public record Message(String id, String body) {}

  public interface Shipments {
    void ship(String body);
  }

  private final Shipments shipments;

  public Consumer(Shipments shipments) {
    this.shipments = shipments;
  }

  // README snippet: layers-consumer
}
