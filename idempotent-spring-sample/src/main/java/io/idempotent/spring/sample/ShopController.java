package io.idempotent.spring.sample;

import java.net.URI;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
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
   * Places an order under a new order id: run twice, it would place two orders. A quantity below one is
   * refused with a {@code ProblemDetail} (400), which the filter records like any 4xx answer: a retry of
   * the same request gets the same refusal, replayed.
   */
  @PostMapping("/orders")
  public ResponseEntity<?> placeOrder(@RequestBody OrderRequest request) {
    if (request.quantity() < 1) {
      return ResponseEntity.of(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
          "quantity is " + request.quantity() + "; an order needs at least 1")).build();
    }
    Receipt receipt = orders.checkout(UUID.randomUUID().toString(), request.item(), request.quantity());
    return ResponseEntity.created(URI.create("/orders/" + receipt.orderId())).body(receipt);
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
