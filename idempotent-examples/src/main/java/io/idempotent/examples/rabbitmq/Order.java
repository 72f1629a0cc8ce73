package io.idempotent.examples.rabbitmq;

import java.nio.charset.StandardCharsets;

/**
 * An order as it travels in a message body: {@code id;customer;amountCents} in UTF-8. Immutable. The text
 * form is deliberately plain so that a test, a shell or another language can publish one.
 *
 * @param id the business key of the order
 * @param customer who placed it
 * @param amountCents what it costs, in cents
 */
public record Order(String id, String customer, long amountCents) {

  public Order {
    if (id.isBlank() || id.contains(";") || customer.contains(";")) {
      throw new IllegalArgumentException("An order id must not be blank, and no field may contain ';'");
    }
  }

  /** The message body. */
  public byte[] toBody() {
    return (id + ";" + customer + ";" + amountCents).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The order in {@code body}.
   *
   * @throws UnreadableOrderException when the body is not an order: no redelivery can change that
   */
  public static Order fromBody(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    String[] fields = text.split(";", -1);
    try {
      if (fields.length != 3) {
        throw new IllegalArgumentException("expected id;customer;amountCents");
      }
      return new Order(fields[0], fields[1], Long.parseLong(fields[2]));
    } catch (IllegalArgumentException e) { // NumberFormatException too
      throw new UnreadableOrderException("Not an order: '" + text + "' (" + e.getMessage() + ")", e);
    }
  }
}
