package io.idempotent.examples.rabbitmq;

import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** Counts the rows of the booked-order table: the effects, one row per booking. */
final class BookedOrders {

  private final Jdbi jdbi;

  BookedOrders(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Rows whose order id starts with {@code prefix}. */
  int count(String prefix) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + OrderBook.TABLE + " WHERE order_id LIKE :p")
        .bind("p", prefix + "%").mapTo(Integer.class).one());
  }

  /** Rows per order id, for the order ids that start with {@code prefix}. */
  Map<String, Integer> byOrder(String prefix) {
    Map<String, Integer> rows = new HashMap<>();
    jdbi.useHandle(h -> h.createQuery("SELECT order_id, COUNT(*) AS n FROM " + OrderBook.TABLE
            + " WHERE order_id LIKE :p GROUP BY order_id")
        .bind("p", prefix + "%")
        .map((rs, ctx) -> Map.entry(rs.getString("order_id"), rs.getInt("n")))
        .forEach(e -> rows.put(e.getKey(), e.getValue())));
    return rows;
  }
}
