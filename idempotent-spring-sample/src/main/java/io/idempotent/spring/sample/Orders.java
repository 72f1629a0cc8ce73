package io.idempotent.spring.sample;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import java.sql.Timestamp;
import java.time.Clock;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders once per order id. Both public methods reach the {@code @Idempotent} private method
 * {@link #placeOnce} by self-invocation: a call on {@code this}, which never passes through a Spring
 * proxy, so a proxy-based interceptor (Spring AOP, {@code @Cacheable}-style annotations) could not
 * protect it. Here {@code ajc} wove the check into the method's own body at compile time, so every call
 * is protected, from wherever it comes.
 */
@Service
public class Orders {

  private final JdbcTemplate jdbc;
  private final Clock clock;

  public Orders(JdbcTemplate jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /**
   * Places the order, with no transaction of its own: each statement commits by itself, and the outcome
   * is recorded on its own ({@code idempotent.jdbi.require-transaction=false}).
   */
  public Receipt place(String orderId, String item, int quantity) {
    return placeOnce(orderId, item, quantity);
  }

  /**
   * Places the order and checks the stock in one transaction. In joined mode the outcome of
   * {@link #placeOnce} is written in this transaction: it commits with the order row and the stock, or
   * rolls back with them. Out of stock, everything rolls back — the order, the stock and the outcome —
   * and the order id is free again, so a retry once the item is restocked places the order.
   *
   * @throws OutOfStockException when the stock would go below zero
   */
  @Transactional
  public Receipt checkout(String orderId, String item, int quantity) {
    Receipt receipt = placeOnce(orderId, item, quantity);
    // checked after the idempotent call: on a replay nothing was taken, and the committed stock is not negative
    Integer left = jdbc.query("SELECT available FROM shop_stock WHERE item = ?",
        rs -> rs.next() ? rs.getInt(1) : null, item);
    if (left == null || left < 0) {
      throw new OutOfStockException(item);
    }
    return receipt;
  }

  /** Adds to the stock of an item. */
  @Transactional
  public void restock(String item, int quantity) {
    if (jdbc.update("UPDATE shop_stock SET available = available + ? WHERE item = ?", quantity, item) == 0) {
      jdbc.update("INSERT INTO shop_stock (item, available) VALUES (?, ?)", item, quantity);
    }
  }

  // its effects are rows in the caller's transaction: the outcome commits or rolls back with them
  @Idempotent(name = "orders.place", key = "#orderId", effects = Effects.TRANSACTIONAL)
  private Receipt placeOnce(String orderId, String item, int quantity) {
    Receipt receipt = new Receipt(orderId, item, quantity, clock.instant());
    jdbc.update("INSERT INTO shop_order (order_id, item, quantity, placed_at) VALUES (?, ?, ?, ?)",
        orderId, item, quantity, Timestamp.from(receipt.placedAt()));
    jdbc.update("UPDATE shop_stock SET available = available - ? WHERE item = ?", quantity, item);
    return receipt;
  }
}
