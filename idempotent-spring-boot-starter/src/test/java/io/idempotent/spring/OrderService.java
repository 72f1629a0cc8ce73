package io.idempotent.spring;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A service as applications write them, woven at compile time: its public methods reach the
 * {@code @Idempotent} private method by self-invocation, which a proxy never sees.
 */
public class OrderService {

  private final JdbcTemplate jdbc;
  private final String table;
  private final AtomicInteger runs = new AtomicInteger();

  public OrderService(JdbcTemplate jdbc, String table) {
    this.jdbc = jdbc;
    this.table = table;
  }

  /** How many times an order was placed (the method body ran). */
  public int runs() {
    return runs.get();
  }

  /** Places the order once per id; no transaction of its own. */
  public String place(String orderId) {
    return placeOnce(orderId);
  }

  /** Places the order once per id in a Spring-managed transaction; fails after the call when asked. */
  @Transactional
  public String placeInTransaction(String orderId, boolean failAfterwards) {
    String receipt = placeOnce(orderId);
    if (failAfterwards) {
      throw new IllegalStateException("the transaction fails after the order was placed");
    }
    return receipt;
  }

  @Idempotent(name = "orders.place", key = "#orderId")
  private String placeOnce(String orderId) {
    int n = runs.incrementAndGet();
    jdbc.update("INSERT INTO " + table + " (id) VALUES (?)", orderId);
    return "receipt " + n + " for " + orderId;
  }
}
