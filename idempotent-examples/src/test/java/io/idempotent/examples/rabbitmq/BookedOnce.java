package io.idempotent.examples.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** The assertion every recipe test ends with: each order booked exactly once, none twice, none lost. */
final class BookedOnce {

  private BookedOnce() {}

  /** Orders {@code prefix + 0 .. prefix + (n - 1)} have one row each in {@code rows}, and nothing else is there. */
  static void assertEach(Map<String, Integer> rows, String prefix, int n) {
    Map<String, Integer> wrong = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      int count = rows.getOrDefault(prefix + i, 0);
      if (count != 1) {
        wrong.put(prefix + i, count);
      }
    }
    rows.forEach((order, count) -> {
      if (!order.matches(Pattern.quote(prefix) + "\\d+")
          || Integer.parseInt(order.substring(prefix.length())) >= n) {
        wrong.put(order, count);
      }
    });
    assertThat(wrong).as("orders not booked exactly once (order id = bookings), of %d", n).isEmpty();
    assertThat(rows.values().stream().mapToInt(Integer::intValue).sum()).as("bookings").isEqualTo(n);
  }
}
