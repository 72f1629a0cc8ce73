package io.idempotent;

import org.jspecify.annotations.Nullable;

/**
 * How one item of an idempotent batch ended ({@code Idempotency.batch}), and how its message is settled.
 * Immutable.
 *
 * @param index the item's place in the batch
 * @param value what the handler returned or a replay gave back (null when it failed, or for a null result)
 * @param failure what the handler threw, a recreated final exception, or why the item did not run (its key
 *     is missing, reused with another payload, or in progress elsewhere); null when it returned
 * @param outcome whether the handler ran or its outcome was replayed; null when the item did not run
 * @param settlement what the consumer does with the item's message ({@link Settlement#of})
 */
public record BatchResult<T>(
    int index, @Nullable T value, @Nullable Throwable failure, @Nullable CallOutcome outcome, Settlement settlement) {

  /** True when the item's recorded outcome was replayed and its handler did not run in this batch. */
  public boolean replayed() {
    return outcome == CallOutcome.REPLAYED;
  }
}
