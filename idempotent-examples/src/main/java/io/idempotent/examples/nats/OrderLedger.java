package io.idempotent.examples.nats;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The handler of "order placed" events: books each order once, as a row of {@value #TABLE}, in the
 * caller's transaction. Thread-safe.
 */
public class OrderLedger {

  /** The namespace of {@link #book}'s keys. */
  public static final String NAME = "nats.orders.book";

  /** The table of booked orders: the handler's effect. It has no unique constraint on the order. */
  public static final String TABLE = "nats_order_booking";

  /**
   * What the handler does after writing its row, inside the same transaction: reserving stock, asking a
   * service in the same database. An exception from it rolls the row back with the claim.
   */
  @FunctionalInterface
  public interface NextStep {
    void run(Order order);

    /** A step that does nothing. */
    NextStep NONE = order -> {};
  }

  private final NextStep nextStep;
  private final AtomicInteger runs = new AtomicInteger();

  public OrderLedger(NextStep nextStep) {
    this.nextStep = nextStep;
  }

  /** Creates the bookings table if missing. */
  public static void createTable(Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + TABLE
        + " (order_id text NOT NULL, cents bigint NOT NULL, booked_at timestamptz NOT NULL DEFAULT now())"));
  }

  /**
   * Books the order, once per order id. {@code handle} must have a transaction open on the store's
   * database: the booking, the claim of the key and the outcome commit together or not at all. An order
   * of zero or less is rejected ({@link OrderRejected}, final: recorded and replayed).
   */
  @Idempotent(name = NAME, key = "#order.id", effects = Effects.TRANSACTIONAL, ttl = "P7D",
      finalExceptions = OrderRejected.class)
  public void book(Handle handle, Order order) {
    runs.incrementAndGet();
    if (order.cents() <= 0) {
      throw new OrderRejected("order " + order.id() + ": amount " + order.cents() + " is not positive");
    }
    handle.execute("INSERT INTO " + TABLE + " (order_id, cents) VALUES (?, ?)", order.id(), order.cents());
    nextStep.run(order);
  }

  /** How many times {@link #book}'s body ran in this JVM, rolled back runs included. */
  public int runs() {
    return runs.get();
  }
}
