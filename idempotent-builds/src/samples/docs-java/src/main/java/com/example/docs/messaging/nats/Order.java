package com.example.docs.messaging.nats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An "order placed" event, JSON on the wire: {@code {"id":"o-1","cents":1250}}. */
public record Order(String id, long cents) {

  private static final Pattern JSON =
      Pattern.compile("\\s*\\{\\s*\"id\"\\s*:\\s*\"([^\"]+)\"\\s*,\\s*\"cents\"\\s*:\\s*(-?\\d+)\\s*}\\s*");

  public byte[] toJson() {
    return ("{\"id\":\"" + id + "\",\"cents\":" + cents + "}").getBytes(StandardCharsets.UTF_8);
  }

  /** Reads a body; one that is not an order fails with an {@link IOException}. */
  public static Order fromJson(byte[] body) throws IOException {
    Matcher m = JSON.matcher(new String(body, StandardCharsets.UTF_8));
    if (!m.matches()) {
      throw new IOException("not an order");
    }
    return new Order(m.group(1), Long.parseLong(m.group(2)));
  }
}
