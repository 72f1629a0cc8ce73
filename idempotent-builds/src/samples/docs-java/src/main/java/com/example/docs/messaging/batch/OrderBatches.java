package com.example.docs.messaging.batch;

import com.rabbitmq.client.Channel;
import io.idempotent.BatchResult;
import io.idempotent.runtime.Idempotency;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** docs/MESSAGING.md, Batches: a batch of orders booked in one transaction, each delivery settled after it. */
public class OrderBatches {

  public record Order(String id, long cents) {}

  public record Readable(String messageId, Order order) {}

  public static class OrderDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;

    public OrderDeclinedException(String message) {
      super(message);
    }
  }

  private final Jdbi jdbi;
  private final Idempotency idempotency;

  public OrderBatches(Jdbi jdbi, Idempotency idempotency) {
    this.jdbi = jdbi;
    this.idempotency = idempotency;
  }

  String book(Handle h, String messageId, Order order) throws OrderDeclinedException {
    if (order.cents() <= 0) {
      throw new OrderDeclinedException("order " + order.id() + ": amount is not positive");
    }
    h.execute("INSERT INTO booked_order (order_id, message_id) VALUES (?, ?)", order.id(), messageId);
    return order.id();
  }

  // README snippet: batch-handle

  // README snippet: batch-settle
}
