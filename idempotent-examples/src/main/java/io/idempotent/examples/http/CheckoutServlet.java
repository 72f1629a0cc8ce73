package io.idempotent.examples.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idempotent.examples.shop.CardDeclinedException;
import io.idempotent.examples.shop.OrderConfirmation;
import io.idempotent.examples.shop.OrderRequest;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.User;
import io.idempotent.http.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code POST /orders} with {@code {"card": "...", "amountCents": 1999}}: places the order and answers 201
 * with the confirmation, or 402 when the card is declined, or 400 for a body it cannot read. The request's
 * {@code Idempotency-Key} is the order's client order id. Thread-safe.
 */
final class CheckoutServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final transient OrderService orders;
  private final AtomicInteger executions = new AtomicInteger();

  CheckoutServlet(OrderService orders) {
    this.orders = orders;
  }

  int executions() {
    return executions.get();
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!req.getRequestURI().equals("/orders")) {
      resp.sendError(404);
      return;
    }
    executions.incrementAndGet();
    JsonNode body;
    try {
      body = JSON.readTree(req.getInputStream());
    } catch (IOException e) {
      body = null;
    }
    if (body == null || !body.path("card").isTextual() || !body.path("amountCents").canConvertToLong()) {
      send(resp, 400, JSON.createObjectNode().put("error", "expected {\"card\": \"...\", \"amountCents\": 1999}"));
      return;
    }
    String user = req.getHeader(CheckoutServer.USER_HEADER);
    String clientOrderId = (String) req.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
    try {
      OrderConfirmation placed = orders.placeOrder(new User(user == null ? "guest" : user),
          new OrderRequest(clientOrderId, body.get("card").asText(), body.get("amountCents").asLong()));
      resp.setHeader("Location", "/orders/" + placed.orderId());
      send(resp, 201, JSON.createObjectNode().put("orderId", placed.orderId()).put("receiptId", placed.receiptId())
          .put("amountCents", placed.amountCents()));
    } catch (CardDeclinedException e) {
      send(resp, 402, JSON.createObjectNode().put("error", e.getMessage()));
    }
  }

  private static void send(HttpServletResponse resp, int status, ObjectNode body) throws IOException {
    resp.setStatus(status);
    resp.setContentType("application/json");
    resp.getOutputStream().write(JSON.writeValueAsBytes(body));
  }
}
