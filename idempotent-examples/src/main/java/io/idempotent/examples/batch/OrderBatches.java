package io.idempotent.examples.batch;

import io.idempotent.BatchResult;
import io.idempotent.Settlement;
import io.idempotent.examples.rabbitmq.Order;
import io.idempotent.examples.rabbitmq.OrderCheck;
import io.idempotent.examples.rabbitmq.OrderDeclinedException;
import io.idempotent.examples.rabbitmq.UnreadableOrderException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Books a batch of orders in one transaction: one row in {@value #TABLE} per order, the effect that must
 * happen once per message id. {@link #handle} does it with {@code Idempotency.batch}: the batch's claims, its
 * rows and its outcomes commit together in the transaction, so a redelivered message, in the same batch or a
 * later one, is replayed without a second row. {@link #handleUnprotected} is the same consumer without the
 * library, for comparison. Thread-safe.
 */
public final class OrderBatches implements BatchHandler {

  /** The namespace of the batches' idempotency records. */
  public static final String NAME = "batch.orders.book";

  /** The table of booked orders. It has no unique constraint: a second booking would be a second row. */
  public static final String TABLE = "batch_booked_order";

  /** How long a batch holds its keys: the whole batch, transaction included, must end within it. */
  public static final Duration LEASE = Duration.ofSeconds(60);

  private final BatchDatabase database;
  private final long limitCents;
  private final OrderCheck check;
  private final AtomicInteger executions = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger rolledBack = new AtomicInteger();

  /**
   * @param limitCents orders above this amount are declined ({@link OrderDeclinedException}, final)
   * @param check what an order passes before it is booked; its exceptions are transient
   */
  public OrderBatches(BatchDatabase database, long limitCents, OrderCheck check) {
    this.database = database;
    this.limitCents = limitCents;
    this.check = check;
  }

  /** Creates the table of booked orders where it is missing. */
  public static void createTable(Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (order_id VARCHAR(100) NOT NULL,"
        + " customer VARCHAR(100) NOT NULL, amount_cents BIGINT NOT NULL, message_id VARCHAR(200) NOT NULL)"));
  }

  /** A delivery that can enter the batch: it has a message id and its body is an order. */
  private record Readable(int position, String messageId, Order order) {}

  /**
   * Books {@code messages} in one transaction, each message id once, and returns how to settle each after the
   * commit: {@code ACK} (booked, or replayed), {@code REJECT} (declined, recorded or replayed; no message id;
   * not an order) or {@code REQUEUE} (its key is in progress in another consumer's batch).
   *
   * @throws io.idempotent.IdempotencyRollbackRequiredException when an order failed with an exception that is
   *     not final: the transaction rolled back, and every message of the batch must be requeued
   * @throws RuntimeException when the database failed (the store's, or JDBI's exceptions): nothing committed
   */
  @Override
  public List<Settlement> handle(List<IncomingOrder> messages) {
    Settlement[] settlements = new Settlement[messages.size()];
    List<Readable> readable = readable(messages, settlements);
    batches.incrementAndGet();
    try {
      List<BatchResult<String>> results = database.jdbi().inTransaction(h -> database.idempotency()
          .batch(NAME, String.class)
          .lease(LEASE)
          .ttl(Duration.ofDays(7))
          .finalExceptions(OrderDeclinedException.class)
          .run(readable, Readable::messageId, Readable::order, r -> book(h, r.messageId(), r.order())));
      for (BatchResult<String> r : results) {
        settlements[readable.get(r.index()).position()] = r.settlement();
      }
    } catch (RuntimeException e) {
      rolledBack.incrementAndGet();
      throw e;
    }
    return Arrays.asList(settlements);
  }

  /**
   * The same consumer without the library: books every order of the batch in one transaction, a duplicate
   * as often as it arrives. An order that fails with an exception other than a decline rolls the batch back.
   */
  public List<Settlement> handleUnprotected(List<IncomingOrder> messages) {
    Settlement[] settlements = new Settlement[messages.size()];
    List<Readable> readable = readable(messages, settlements);
    batches.incrementAndGet();
    try {
      database.jdbi().useTransaction(h -> {
        for (Readable r : readable) {
          try {
            book(h, r.messageId(), r.order());
            settlements[r.position()] = Settlement.ACK;
          } catch (OrderDeclinedException e) {
            settlements[r.position()] = Settlement.REJECT;
          }
        }
      });
    } catch (RuntimeException e) {
      rolledBack.incrementAndGet();
      throw e;
    }
    return Arrays.asList(settlements);
  }

  /** The deliveries with a message id and an order in their body; the others are settled REJECT at once. */
  private static List<Readable> readable(List<IncomingOrder> messages, Settlement[] settlements) {
    List<Readable> readable = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      IncomingOrder m = messages.get(i);
      String id = m.messageId();
      if (id == null || id.isBlank()) {
        settlements[i] = Settlement.REJECT; // no key: no redelivery can have one
        continue;
      }
      try {
        readable.add(new Readable(i, id, Order.fromBody(m.body().getBytes(StandardCharsets.UTF_8))));
      } catch (UnreadableOrderException e) {
        settlements[i] = Settlement.REJECT; // not an order: every redelivery would fail the same way
      }
    }
    return readable;
  }

  private String book(Handle h, String messageId, Order order) throws OrderDeclinedException {
    executions.incrementAndGet();
    check.check(order);
    if (order.amountCents() > limitCents) {
      throw new OrderDeclinedException("Order " + order.id() + " is over the limit of " + limitCents + " cents");
    }
    h.createUpdate("INSERT INTO " + TABLE + " (order_id, customer, amount_cents, message_id)"
            + " VALUES (:order, :customer, :amount, :message)")
        .bind("order", order.id())
        .bind("customer", order.customer())
        .bind("amount", order.amountCents())
        .bind("message", messageId)
        .execute();
    return order.id();
  }

  /** How many times an order's booking started (replays do not count; rolled-back bookings do). */
  public int executions() {
    return executions.get();
  }

  /** Batches handled, committed or not. */
  public int batches() {
    return batches.get();
  }

  /** Batches whose transaction rolled back (every message requeued). */
  public int rolledBack() {
    return rolledBack.get();
  }
}
