package io.idempotent.runtime;

import io.idempotent.BatchResult;
import io.idempotent.OnInProgress;
import io.idempotent.Settlement;
import io.idempotent.internal.BatchRun;
import io.idempotent.internal.CallPlan;
import io.idempotent.internal.IdempotencyEngine;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A batch of messages handled together, each at most once per key: all keys are claimed at once and all
 * outcomes recorded at once, in one round trip each where the store offers batch claims (docs/MESSAGING.md,
 * Batches). Build one per batch; not thread-safe.
 *
 * <pre>{@code
 * List<BatchResult<Receipt>> results = idempotency.batch("orders.consume", Receipt.class)
 *     .finalExceptions(PaymentDeclined.class)
 *     .run(messages, Message::id, Message::body, m -> shop.fulfil(m.body()));
 * for (BatchResult<Receipt> r : results) {
 *   settle(messages.get(r.index()), r.settlement()); // ACK, REJECT or REQUEUE
 * }
 * }</pre>
 *
 * An item whose key is in progress elsewhere is not waited for: it is settled {@code REQUEUE}. An item with
 * the key of an earlier item of the same batch is answered as that item's retry.
 */
public final class IdempotentBatch<T> {

  /** Handles one message of the batch. */
  @FunctionalInterface
  public interface Handler<M, T> {
    T handle(M message) throws Exception;
  }

  private final IdempotencyEngine engine;
  private final String name;
  private final Type resultType;
  private @Nullable Duration ttl;
  private @Nullable Duration lease;
  private Class<? extends Throwable>[] finalExceptions = emptyExceptions();
  private String store = "";

  IdempotentBatch(IdempotencyEngine engine, String name, Type resultType) {
    this.engine = engine;
    this.name = Objects.requireNonNull(name, "name");
    this.resultType = Objects.requireNonNull(resultType, "resultType");
  }

  public IdempotentBatch<T> ttl(Duration ttl) {
    this.ttl = ttl;
    return this;
  }

  /** How long the batch holds its keys; it must cover the whole batch, which renews no lease. */
  public IdempotentBatch<T> lease(Duration lease) {
    this.lease = lease;
    return this;
  }

  /** Exceptions that are final business outcomes, recorded and replayed ({@link io.idempotent.Idempotent#finalExceptions()}). */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is copied, never handed out
  public final IdempotentBatch<T> finalExceptions(Class<? extends Throwable>... types) {
    this.finalExceptions = types.clone();
    return this;
  }

  public IdempotentBatch<T> store(String storeName) {
    this.store = Objects.requireNonNull(storeName, "storeName");
    return this;
  }

  /** Handles {@code messages} without checking payloads: a key alone says a message is a duplicate. */
  public <M> List<BatchResult<T>> run(List<M> messages, Function<? super M, String> key,
      Handler<? super M, ? extends T> handler) {
    return run(messages, key, null, handler);
  }

  /**
   * Handles {@code messages}: each message's {@code key} runs {@code handler} at most once, and a message
   * whose key was used with another {@code payload} is refused ({@link io.idempotent.IdempotencyKeyReusedException}).
   *
   * @return one result per message, in order
   */
  @SuppressWarnings("unchecked")
  public <M> List<BatchResult<T>> run(List<M> messages, Function<? super M, String> key,
      @Nullable Function<? super M, ?> payload, Handler<? super M, ? extends T> handler) {
    CallPlan plan = new CallPlan(name, name, store, ttl, lease, null, OnInProgress.THROW, finalExceptions,
        payload != null, false, resultType, handler.getClass().getClassLoader(), null,
        io.idempotent.Effects.UNDECLARED);
    List<M> items = List.copyOf(messages);
    List<String> keys = new ArrayList<>(items.size());
    List<Object[]> payloads = new ArrayList<>(items.size());
    for (M m : items) {
      keys.add(key.apply(m));
      payloads.add(payload != null ? new Object[] {payload.apply(m)} : new Object[0]);
    }
    List<BatchRun.Item> endings =
        engine.batch(plan, keys, payloads, i -> handler.handle(items.get(i)));
    List<BatchResult<T>> results = new ArrayList<>(endings.size());
    for (int i = 0; i < endings.size(); i++) {
      BatchRun.Item e = endings.get(i);
      results.add(new BatchResult<>(i, (T) e.value(), e.failure(), e.outcome(),
          Settlement.of(e.failure(), finalExceptions)));
    }
    return results;
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Throwable>[] emptyExceptions() {
    return (Class<? extends Throwable>[]) new Class<?>[0];
  }
}
