package io.idempotent.examples.nats;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * An "order placed" event, the body of a message on the orders subject, as JSON. Immutable.
 *
 * @param id the order's id, the business key: the same in every copy of the event, whoever published it
 * @param cents the amount; an order of zero or less is rejected
 */
public record Order(String id, long cents) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The message body. */
  public byte[] toJson() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The order in a message body; {@link IOException} when the body is not one. */
  public static Order fromJson(byte[] body) throws IOException {
    Order order = JSON.readValue(body, Order.class);
    if (order == null || order.id() == null || order.id().isBlank()) {
      throw new IOException("not an order: no id");
    }
    return order;
  }
}
