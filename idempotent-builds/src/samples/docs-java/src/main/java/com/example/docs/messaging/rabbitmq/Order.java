package com.example.docs.messaging.rabbitmq;

import java.nio.charset.StandardCharsets;

/** An order as a message body carries it: {@code id;customer;amountCents}. */
public record Order(String id, String customer, long amountCents) {

  public byte[] toBody() {
    return (id + ";" + customer + ";" + amountCents).getBytes(StandardCharsets.UTF_8);
  }

  /** Reads a body; one that is not an order fails with {@link UnreadableOrderException}. */
  public static Order fromBody(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    String[] fields = text.split(";", -1);
    try {
      if (fields.length != 3 || fields[0].isBlank()) {
        throw new IllegalArgumentException("expected id;customer;amountCents");
      }
      return new Order(fields[0], fields[1], Long.parseLong(fields[2]));
    } catch (IllegalArgumentException e) {
      throw new UnreadableOrderException("Not an order: '" + text + "'", e);
    }
  }
}
