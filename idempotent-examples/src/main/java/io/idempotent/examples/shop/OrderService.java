package io.idempotent.examples.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Places orders: charges the card, then reserves stock. Idempotent at two layers, both woven at compile
 * time:
 *
 * <ul>
 *   <li>{@link #placeOrder}, the entry point, keyed by the order id the client generated and scoped per
 *       user, so a retry after a lost response gets the first confirmation back;
 *   <li>{@code chargeOnce}, a private inner step called on {@code this}, keyed by the order, so that when
 *       the order fails after the charge (the warehouse is down) and the client retries, the retry
 *       replays the charge instead of charging the card again.
 * </ul>
 *
 * <p>Thread-safe.
 */
public class OrderService {

  /** The namespace of {@link #placeOrder}. */
  public static final String PLACE = "shop.orders.place";
  /** The namespace of the inner charge. */
  public static final String CHARGE = "shop.orders.charge";

  private final PaymentGateway gateway;
  private final Warehouse warehouse;
  private final AtomicInteger executions = new AtomicInteger();

  public OrderService(PaymentGateway gateway, Warehouse warehouse) {
    this.gateway = gateway;
    this.warehouse = warehouse;
  }

  /**
   * Places an order. The stored key is (user, client order id), as a {@code UNIQUE(user_id,
   * client_order_id)} constraint would make it: another user's order with the same id is a different
   * order. A declined card is final: recorded and replayed, not retried. Any other failure releases the
   * key, so the client's retry runs again.
   */
  @Idempotent(name = PLACE, key = "#request.clientOrderId", scope = "#user.id",
      finalExceptions = CardDeclinedException.class)
  public OrderConfirmation placeOrder(User user, OrderRequest request) {
    executions.incrementAndGet();
    String orderId = user.id() + "/" + request.clientOrderId();
    Receipt receipt = chargeOnce(orderId, request.card(), request.amountCents());
    warehouse.reserve(orderId); // may fail after the charge: the retry must not charge again
    return new OrderConfirmation(orderId, receipt.receiptId(), request.amountCents());
  }

  /**
   * The step with the external side effect. Kept longer than the order's record (seven days against
   * the default day), so it still protects a retry that comes late.
   */
  @Idempotent(name = CHARGE, key = "#orderId", ttl = "P7D", finalExceptions = CardDeclinedException.class)
  private Receipt chargeOnce(String orderId, String card, long amountCents) {
    return gateway.charge(orderId, card, amountCents);
  }

  /** How many times {@link #placeOrder}'s body ran in this process. */
  public int executions() {
    return executions.get();
  }
}
