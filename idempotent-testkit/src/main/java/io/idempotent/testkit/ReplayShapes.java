package io.idempotent.testkit;

import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Ordinary application classes a replay must give back as they were, from any store: a value class without
 * getters, and exceptions that keep fields of their own. {@link IdempotencyStoreContract} records and replays
 * them; a store's own tests may use them too.
 */
public final class ReplayShapes {

  private ReplayShapes() {}

  /** A value class: private final fields, one constructor, no getters; nested, nullable and collection fields. */
  public static final class Statement {
    private final String id;
    private final long cents;
    private final ZonedDateTime at;
    private final Line first;
    private final List<Line> lines;
    private final Map<String, Integer> tags;

    public Statement(String id, long cents, ZonedDateTime at, Line first, List<Line> lines, Map<String, Integer> tags) {
      this.id = id;
      this.cents = cents;
      this.at = at;
      this.first = first;
      this.lines = lines;
      this.tags = tags;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Statement s && s.id.equals(id) && s.cents == cents && Objects.equals(s.at, at)
          && Objects.equals(s.first, first) && Objects.equals(s.lines, lines) && Objects.equals(s.tags, tags);
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, cents);
    }

    @Override
    public String toString() {
      return "Statement[" + id + ", " + cents + ", " + at + ", " + first + ", " + lines + ", " + tags + "]";
    }
  }

  /** A nested value class; its quantity may be null. */
  public static final class Line {
    private final String sku;
    private final Integer quantity;

    public Line(String sku, Integer quantity) {
      this.sku = sku;
      this.quantity = quantity;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Line l && Objects.equals(l.sku, sku) && Objects.equals(l.quantity, quantity);
    }

    @Override
    public int hashCode() {
      return Objects.hash(sku, quantity);
    }

    @Override
    public String toString() {
      return sku + "x" + quantity;
    }
  }

  /** Formats its own message from a code it keeps. */
  public static class CardDeclined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;

    public CardDeclined(String code) {
      super("card declined: " + code);
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** Only {@code (int)} and {@code ()} constructors. */
  public static class LimitExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int limit;

    public LimitExceeded(int limit) {
      super("over the limit of " + limit);
      this.limit = limit;
    }

    public LimitExceeded() {
      this(100);
    }

    public int limit() {
      return limit;
    }
  }

  /** Only a {@code (String, Throwable)} constructor. */
  public static class GatewayRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GatewayRefused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** An application's subclass of a JDK exception (a final type may be declared as the JDK's). */
  public static class InvalidCoupon extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidCoupon(String message) {
      super(message);
    }
  }
}
