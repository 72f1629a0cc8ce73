package io.idempotent.spring.sample;

import io.idempotent.CallOutcome;
import io.idempotent.Settlement;
import io.idempotent.runtime.Idempotency;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Ships the orders of the orders queue ({@link OrderQueues}), once per order id however often a message
 * is delivered: RabbitMQ delivers at least once, and a message is delivered again after a requeue, a
 * dropped connection or a consumer that died before its acknowledgement.
 *
 * <p>The container acknowledges a message (acknowledge mode {@code AUTO}) after this method returns, so
 * after {@link Shipments#ship}'s transaction committed the shipment and its outcome. A failure is settled
 * with {@link Settlement}: a final one (recorded, or replayed from the record) is rejected without requeue
 * with {@link AmqpRejectAndDontRequeueException}, and the queue dead-letters the message; any other is
 * rethrown, and the container rejects the message with requeue ({@code default-requeue-rejected}, true by
 * default), to be shipped by a later delivery.
 *
 * <p>Each delivery is logged in {@code order_delivery}: how the idempotent call ended (executed, replayed,
 * or refused) and how the delivery was settled.
 */
@Component
@ConditionalOnBooleanProperty("sample.orders.enabled")
public class OrderListener {

  private final Shipments shipments;
  private final JdbcTemplate jdbc;

  public OrderListener(Shipments shipments, JdbcTemplate jdbc) {
    this.shipments = shipments;
    this.jdbc = jdbc;
  }

  @RabbitListener(id = "orders", queues = "${sample.orders.queue}", concurrency = "${sample.orders.concurrency}")
  public void onOrderPlaced(OrderPlaced order) {
    try {
      shipments.ship(order); // @Transactional: committed when it returns; acknowledged after this method returns
    } catch (RuntimeException e) {
      Settlement settlement = Settlement.of(e, InvalidOrderException.class);
      logDelivery(order, settlement);
      if (settlement == Settlement.REJECT) {
        throw new AmqpRejectAndDontRequeueException("Dead-lettered order " + order.orderId(), e);
      }
      throw e; // REQUEUE: rejected with requeue, delivered again
    }
    logDelivery(order, Settlement.ACK);
  }

  private void logDelivery(OrderPlaced order, Settlement settlement) {
    CallOutcome outcome = Idempotency.lastOutcome(); // null: refused before it ran (in progress elsewhere)
    jdbc.update("INSERT INTO order_delivery (order_id, outcome, settlement) VALUES (?, ?, ?)",
        order.orderId(), outcome == null ? "REFUSED" : outcome.name(), settlement.name());
  }
}
