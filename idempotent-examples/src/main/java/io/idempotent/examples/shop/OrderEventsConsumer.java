package io.idempotent.examples.shop;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.util.concurrent.atomic.AtomicInteger;

/** Consumes "order paid" messages and ships the orders. Thread-safe. */
public class OrderEventsConsumer {

  /** The namespace of {@link #onMessage}. */
  public static final String NAME = "shop.consumer.order-paid";

  private final Warehouse warehouse;
  private final AtomicInteger executions = new AtomicInteger();

  public OrderEventsConsumer(Warehouse warehouse) {
    this.warehouse = warehouse;
  }

  /**
   * Ships the order, once per message id. A redelivery that arrives while the first delivery is still
   * being processed (on another consumer thread) waits for it and then replays, so the broker gets its
   * acknowledgement without a second shipment. The fingerprint leaves out the delivery count.
   */
  @Idempotent(name = NAME, key = "#message.id", payload = "#message.orderId", ttl = "P7D",
      onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public void onMessage(Message message) {
    executions.incrementAndGet();
    warehouse.ship(message.orderId());
  }

  /** How many times the consumer's body ran in this process. */
  public int executions() {
    return executions.get();
  }
}
