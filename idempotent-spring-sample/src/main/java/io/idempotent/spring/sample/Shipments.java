package io.idempotent.spring.sample;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Ships each order once per order id, however often its message is delivered ({@link OrderListener}).
 *
 * <p>The shipment row, the idempotency claim and the outcome are written in one transaction on the
 * application's {@code DataSource} ({@code effects = Effects.TRANSACTIONAL}), which commits before
 * {@link #ship} returns to the listener, and so before the container acknowledges the message. A
 * transient failure of the warehouse rolls all three back: the order id is free again and the requeued
 * message ships it. {@link InvalidOrderException} is final and thrown before anything is written; the
 * transaction commits with it ({@code noRollbackFor}), so it is recorded and every redelivery replays it.
 */
@Service
public class Shipments {

  private final JdbcTemplate jdbc;
  private final RemoteService warehouse = new RemoteService("the warehouse");

  public Shipments(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Ships the order: one {@code shipment} row, and the warehouse told to pick it.
   *
   * @throws InvalidOrderException when the order has no quantity to ship (final: recorded, replayed)
   * @throws TransientFailureException when the warehouse does not answer (nothing recorded, retried)
   */
  @Transactional(noRollbackFor = InvalidOrderException.class)
  @Idempotent(name = "shipments.ship", key = "#order.orderId", effects = Effects.TRANSACTIONAL,
      finalExceptions = InvalidOrderException.class)
  public void ship(OrderPlaced order) {
    if (order.quantity() < 1) {
      throw new InvalidOrderException("Order " + order.orderId() + " has no quantity to ship: " + order.quantity());
    }
    jdbc.update("INSERT INTO shipment (order_id, item, quantity, consumer) VALUES (?, ?, ?, ?)",
        order.orderId(), order.item(), order.quantity(), Thread.currentThread().getName());
    warehouse.call(); // may fail: the row and the claim roll back with the transaction
  }

  /** The warehouse stand-in. */
  public RemoteService warehouse() {
    return warehouse;
  }
}
