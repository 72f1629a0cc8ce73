package io.idempotent.examples.shop;

import org.jdbi.v3.core.Jdbi;

/**
 * The state-machine guard recipe: an order row moves from {@code PENDING} to {@code PAID} through a
 * conditional update, and the update count says which caller made the move. No idempotency record is
 * needed where the row already has a status; the database's row lock serialises the callers.
 * Thread-safe.
 */
public final class OrderStatusGuard {

  private final Jdbi jdbi;

  public OrderStatusGuard(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Creates the order as {@code PENDING} unless it exists. */
  public void createPending(String orderId) {
    jdbi.useHandle(h -> h.createUpdate("INSERT INTO shop_order (id, status) SELECT :id, 'PENDING'"
            + " WHERE NOT EXISTS (SELECT 1 FROM shop_order WHERE id = :id)")
        .bind("id", orderId).execute());
  }

  /**
   * Moves the order from {@code PENDING} to {@code PAID}.
   *
   * @return true for the one call that moved it; false when it was already paid (or is not payable)
   */
  public boolean markPaid(String orderId) {
    int moved = jdbi.withHandle(h -> h.createUpdate(
            "UPDATE shop_order SET status = 'PAID' WHERE id = :id AND status = 'PENDING'")
        .bind("id", orderId).execute());
    return moved == 1;
  }

  /** The order's status, or null when there is no such order. */
  public String status(String orderId) {
    return jdbi.withHandle(h -> h.createQuery("SELECT status FROM shop_order WHERE id = :id")
        .bind("id", orderId).mapTo(String.class).findOne().orElse(null));
  }
}
