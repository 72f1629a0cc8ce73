package io.idempotent.examples.shop;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;

/**
 * The shop's web layer, reduced to what matters here: it turns each outcome into the HTTP status the
 * {@code Idempotency-Key} header draft asks for, and marks replayed responses. Thread-safe.
 *
 * <table>
 *   <caption>status codes</caption>
 *   <tr><td>order placed (or replayed)</td><td>201, replay marked {@value HttpResponse#REPLAYED_HEADER}</td></tr>
 *   <tr><td>no key</td><td>400</td></tr>
 *   <tr><td>card declined (or replayed)</td><td>402</td></tr>
 *   <tr><td>same key still in progress</td><td>409</td></tr>
 *   <tr><td>same key, different payload</td><td>422</td></tr>
 *   <tr><td>a dependency or the store is down</td><td>503</td></tr>
 * </table>
 */
public final class CheckoutEndpoint {

  private final OrderService orders;

  public CheckoutEndpoint(OrderService orders) {
    this.orders = orders;
  }

  /** {@code POST /orders}. A replay returns the first response's status and body, marked as a replay. */
  public HttpResponse post(User user, OrderRequest request) {
    try {
      OrderConfirmation placed = orders.placeOrder(user, request);
      return new HttpResponse(201, replayed(), placed.orderId() + " " + placed.receiptId());
    } catch (IdempotencyKeyException e) {
      return new HttpResponse(400, false, "Missing client order id");
    } catch (CardDeclinedException e) {
      return new HttpResponse(402, replayed(), e.getMessage());
    } catch (IdempotencyInProgressException e) {
      return new HttpResponse(409, false, "This order is still being processed; retry shortly");
    } catch (IdempotencyKeyReusedException e) {
      return new HttpResponse(422, false, "This client order id was already used for a different order");
    } catch (ServiceUnavailableException | IdempotencyStoreException e) {
      return new HttpResponse(503, false, "Temporarily unavailable; retry with the same client order id");
    }
  }

  /** Whether the call that just ended on this thread returned a recorded outcome. */
  private static boolean replayed() {
    return Idempotency.lastOutcome() == CallOutcome.REPLAYED;
  }
}
