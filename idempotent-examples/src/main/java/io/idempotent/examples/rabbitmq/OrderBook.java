package io.idempotent.examples.rabbitmq;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * Books orders: one row in {@value #TABLE} per order, the effect that must happen exactly once however often
 * the broker delivers the message. Thread-safe.
 *
 * <p>{@link #book} is {@code @Idempotent} with {@link Effects#TRANSACTIONAL}: its claim, its row and its
 * recorded outcome are written in the caller's transaction on the store's database, so they commit together
 * or not at all. A consumer that dies before the commit leaves nothing behind and the redelivery books the
 * order; one that dies after the commit but before its acknowledgement leaves a record, and the redelivery
 * replays it without booking again.
 */
public class OrderBook {

  /** The namespace of the idempotency records of {@link #book}. */
  public static final String NAME = "rabbitmq.orders.book";

  /** The table of booked orders. It has no unique constraint: a second booking would be a second row. */
  public static final String TABLE = "booked_order";

  private final long limitCents;
  private final OrderCheck check;
  private final AtomicInteger executions = new AtomicInteger();

  /**
   * @param limitCents orders above this amount are declined
   * @param check what an order passes before it is booked
   */
  public OrderBook(long limitCents, OrderCheck check) {
    this.limitCents = limitCents;
    this.check = check;
  }

  /** Creates the table of booked orders where it is missing. */
  public static void createTable(Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (order_id VARCHAR(100) NOT NULL,"
        + " customer VARCHAR(100) NOT NULL, amount_cents BIGINT NOT NULL, message_id VARCHAR(200) NOT NULL,"
        + " booked_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)"));
  }

  /**
   * Books {@code order}, once per message id, in the transaction {@code handle} has open. A duplicate that
   * arrives while the first delivery is still running (on another channel, or redelivered after a connection
   * dropped) waits for its outcome and replays it, so the broker gets an acknowledgement rather than a
   * requeue loop.
   *
   * @param messageId the message id; without one the call is refused as a missing key (and the consumer
   *     rejects the delivery)
   * @throws OrderDeclinedException when the amount is over the limit: recorded, and replayed on redelivery
   */
  @Idempotent(name = NAME, key = "#messageId", payload = "#order", ttl = "P7D", effects = Effects.TRANSACTIONAL,
      finalExceptions = OrderDeclinedException.class, onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public void book(Handle handle, @Nullable String messageId, Order order) throws OrderDeclinedException {
    executions.incrementAndGet();
    check.check(order);
    if (order.amountCents() > limitCents) {
      throw new OrderDeclinedException("Order " + order.id() + " is over the limit of " + limitCents + " cents");
    }
    handle.createUpdate("INSERT INTO " + TABLE + " (order_id, customer, amount_cents, message_id)"
            + " VALUES (:order, :customer, :amount, :message)")
        .bind("order", order.id())
        .bind("customer", order.customer())
        .bind("amount", order.amountCents())
        .bind("message", messageId)
        .execute();
  }

  /** How many times the body of {@link #book} started in this process (replays do not count). */
  public int executions() {
    return executions.get();
  }
}
