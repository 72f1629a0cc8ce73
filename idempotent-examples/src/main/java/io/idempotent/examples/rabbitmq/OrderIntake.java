package io.idempotent.examples.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The handler of order messages: reads the order and books it in a transaction of its own on the store's
 * database, keyed by the message id. It returns after that transaction committed, so the consumer's
 * acknowledgement always follows the commit of both the booking and its idempotency record. Thread-safe.
 */
public final class OrderIntake implements DeliveryHandler {

  private final Jdbi jdbi;
  private final OrderBook book;

  /**
   * @param jdbi the store's {@code Jdbi} ({@code JdbiIdempotencyStore.jdbi()}): the store finds the caller's
   *     transaction among the handles of its own {@code Jdbi}
   */
  public OrderIntake(Jdbi jdbi, OrderBook book) {
    this.jdbi = jdbi;
    this.book = book;
  }

  /**
   * Starts consuming {@code queue} with this handler on {@code channels} channels. A declined order (its
   * decline is recorded: every redelivery would replay it) and an unreadable body are rejected, to the
   * dead-letter queue; any other failure is requeued.
   */
  public SettlingConsumer consume(Connection connection, String queue, int channels, int prefetch)
      throws IOException {
    return SettlingConsumer.start(connection, queue, channels, prefetch, this, OrderDeclinedException.class,
        UnreadableOrderException.class);
  }

  @Override
  public void handle(AMQP.BasicProperties properties, byte[] body) throws OrderDeclinedException {
    Order order = Order.fromBody(body);
    String messageId = properties.getMessageId(); // null: refused as a missing key, and rejected
    Optional<OrderDeclinedException> declined = jdbi.inTransaction(handle -> {
      try {
        book.book(handle, messageId, order);
        return Optional.empty();
      } catch (OrderDeclinedException e) {
        // commit rather than roll back: the decline is recorded in this transaction, so a redelivery
        // replays it instead of checking the order again
        return Optional.of(e);
      }
    });
    if (declined.isPresent()) {
      throw declined.get();
    }
  }
}
