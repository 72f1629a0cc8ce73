package io.idempotent.spring.sample;

import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop over HTTP. {@code POST /orders} sits behind the {@code Idempotency-Key} filter the starter
 * registers ({@code idempotent.http.enabled=true}): the first request with a key runs and its response is
 * recorded; a retry with the same key and body gets that response again, marked
 * {@code Idempotent-Replayed: true}, without reaching this controller; the same key with another body is
 * refused with 422, a POST without a key with 400. Nothing here knows about keys.
 */
@RestController
public class ShopController {

  /** The body of {@code POST /orders}. */
  public record OrderRequest(String item, int quantity) {}

  private final Orders orders;
  private final JdbcTemplate jdbc;

  public ShopController(Orders orders, JdbcTemplate jdbc) {
    this.orders = orders;
    this.jdbc = jdbc;
  }

  /**
   * Places an order under a new order id: run twice, it would place two orders.
   *
   * <p>The receipt is returned as the body, not in a {@code ResponseEntity}: Spring MVC flushes the
   * response buffer after writing a {@code ResponseEntity} (or a {@code ProblemDetail}), which the filter
   * takes for a streamed response and passes through unrecorded, so a retry would run again.
   */
  @PostMapping("/orders")
  @ResponseStatus(HttpStatus.CREATED)
  public Receipt placeOrder(@RequestBody OrderRequest request, HttpServletResponse response) {
    Receipt receipt = orders.checkout(UUID.randomUUID().toString(), request.item(), request.quantity());
    response.setHeader("Location", "/orders/" + receipt.orderId());
    return receipt;
  }

  /** One run of the settlement job. */
  public record Settlement(String period, String instance, int ordersSettled) {}

  /** The settlement job's latest runs, newest first: one per period, whichever instance ran it. */
  @GetMapping("/settlements")
  public List<Settlement> settlements() {
    return jdbc.query("SELECT period, instance, orders_settled FROM settlement_run ORDER BY period DESC"
        + " FETCH FIRST 20 ROWS ONLY", (rs, row) -> new Settlement(rs.getString(1), rs.getString(2), rs.getInt(3)));
  }
}
