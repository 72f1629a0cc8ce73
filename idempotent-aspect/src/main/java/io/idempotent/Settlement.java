package io.idempotent;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * What a message consumer does with a delivery after its idempotent handler returned or threw: acknowledge
 * it, reject it without requeueing (dead-letter it where the queue has a dead-letter target), or requeue it
 * for a later delivery. A consumer acknowledges only after the handler returned, so the outcome is recorded
 * (in a transaction of the caller's: after it commits). docs/MESSAGING.md gives the recipes per broker.
 *
 * <pre>{@code
 * try {
 *   orders.handle(order); // @Idempotent(key = "#order.id", finalExceptions = PaymentDeclined.class)
 *   channel.basicAck(tag, false);
 * } catch (Exception e) {
 *   switch (Settlement.of(e, PaymentDeclined.class)) {
 *     case REJECT -> channel.basicReject(tag, false); // to the dead-letter exchange, if the queue has one
 *     case REQUEUE -> channel.basicNack(tag, false, true);
 *     case ACK -> channel.basicAck(tag, false);
 *   }
 * }
 * }</pre>
 *
 * A recorded final exception is rejected, never requeued: every redelivery would replay it, forever.
 */
public enum Settlement {
  /** The handler returned, or its recorded outcome was replayed: the delivery is done. */
  ACK,
  /**
   * No redelivery can end otherwise: a final exception (recorded, or replayed from the record), a key reused
   * with another payload, a missing key, a result that cannot be recorded, a refused one-time token or a
   * declaration the library refuses. Reject without requeue; the message goes to the dead-letter target
   * where there is one, and is dropped otherwise.
   */
  REJECT,
  /**
   * A later delivery may succeed: the same key is in progress in another consumer, the store failed, or the
   * handler threw an exception that is not final, so its claim was released (or rolled back with the
   * caller's transaction) and a redelivery runs it again.
   */
  REQUEUE;

  /**
   * The settlement of a delivery whose handler ended with {@code failure} (null: it returned), where
   * {@code finalExceptions} are the handler's declared final exceptions ({@link Idempotent#finalExceptions()}).
   * A {@link CompletionException} or {@link ExecutionException} is judged by its cause.
   */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only read
  public static Settlement of(@Nullable Throwable failure, Class<? extends Throwable>... finalExceptions) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t == null) {
      return ACK;
    }
    if (t instanceof IdempotencyInProgressException || t instanceof IdempotencyStoreException) {
      return REQUEUE;
    }
    if (t instanceof IdempotencyException) {
      return REJECT; // key reused or missing, result unreadable, token refused, bad configuration
    }
    for (Class<? extends Throwable> type : finalExceptions) {
      if (type.isInstance(t)) {
        return REJECT;
      }
    }
    return REQUEUE;
  }
}
