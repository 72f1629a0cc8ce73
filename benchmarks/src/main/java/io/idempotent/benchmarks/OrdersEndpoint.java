package io.idempotent.benchmarks;

import io.idempotent.http.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The endpoint of {@link HttpFilterBenchmark}: takes a small JSON order, picks its fields, numbers it and
 * answers 201 with a {@code Location} and a JSON body. Counts its executions apart for requests that came
 * through {@link IdempotencyFilter} (they carry its key attribute) and requests that did not.
 */
final class OrdersEndpoint extends HttpServlet {

  private static final long serialVersionUID = 1L;

  final AtomicLong filtered = new AtomicLong();
  final AtomicLong unfiltered = new AtomicLong();
  private final AtomicLong orderNumbers = new AtomicLong(100_000);

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
    (request.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE) != null ? filtered : unfiltered).incrementAndGet();
    String order = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String sku = field(order, "sku");
    int quantity = Integer.parseInt(field(order, "quantity"));
    long number = orderNumbers.incrementAndGet();
    response.setStatus(201);
    response.setContentType("application/json");
    response.setHeader("Location", "/orders/" + number);
    response.getWriter().write("{\"order\":" + number + ",\"sku\":\"" + sku + "\",\"quantity\":" + quantity
        + ",\"status\":\"accepted\"}");
  }

  /** The value of a top-level field of a flat JSON object: a string's content, or a number's digits. */
  static String field(String json, String name) {
    int at = json.indexOf("\"" + name + "\":");
    if (at < 0) {
      throw new IllegalArgumentException("no field " + name + " in " + json);
    }
    int start = at + name.length() + 3;
    if (json.charAt(start) == '"') {
      return json.substring(start + 1, json.indexOf('"', start + 1));
    }
    int end = start;
    while (end < json.length() && Character.isDigit(json.charAt(end))) {
      end++;
    }
    return json.substring(start, end);
  }
}
