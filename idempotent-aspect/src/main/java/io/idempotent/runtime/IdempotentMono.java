package io.idempotent.runtime;

import io.idempotent.CallResult;
import io.idempotent.internal.CallPlan;
import io.idempotent.internal.FingerprintException;
import io.idempotent.internal.MonoCalls;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A programmatic idempotent call whose body is a Reactor {@code Mono} (docs/REACTIVE.md): the call is made
 * when the returned {@code Mono} is subscribed, once per subscription, and no thread waits for it.
 *
 * <ul>
 *   <li>Subscribing claims the key; the store is called on {@code storeCalls} (by default Reactor's
 *       bounded-elastic threads), never on the subscriber's thread.
 *   <li>Claimed: the body's {@code Mono} is subscribed with the subscriber's context; its value is recorded
 *       and emitted as {@code CallResult(value, EXECUTED)} (an empty {@code Mono} records null). Its error
 *       releases the key (a final exception is recorded) and is emitted.
 *   <li>Completed before: {@code CallResult(recorded, REPLAYED)}, without calling the body.
 *   <li>Refused: the error {@link IdempotentCall#execute} throws. {@code OnInProgress.WAIT} waits for the
 *       store's change signal or a timer, holding no thread.
 *   <li>Cancelled: the body's subscription is cancelled and the key released.
 * </ul>
 *
 * <pre>{@code
 * Mono<CallResult<Receipt>> receipt = IdempotentMono.execute(
 *     idempotency.call("payments.charge", Receipt.class).key(orderId),
 *     () -> gateway.charge(orderId, amount));
 * }</pre>
 */
public final class IdempotentMono {

  private IdempotentMono() {}

  /** {@link #execute(IdempotentCall, Supplier, Scheduler)} with the store called on bounded-elastic threads. */
  public static <T> Mono<CallResult<T>> execute(IdempotentCall<T> call, Supplier<? extends Mono<? extends T>> body) {
    return execute(call, body, MonoCalls.defaultScheduler());
  }

  /**
   * The call as a {@code Mono}: made on each subscription, with the store called on {@code storeCalls}.
   * The call's settings are taken now; changing {@code call} afterwards changes nothing.
   */
  @SuppressWarnings("unchecked")
  public static <T> Mono<CallResult<T>> execute(
      IdempotentCall<T> call, Supplier<? extends Mono<? extends T>> body, Scheduler storeCalls) {
    CallPlan plan;
    try {
      plan = call.plan(body.getClass().getClassLoader());
    } catch (RuntimeException e) {
      return Mono.error(e);
    }
    Object[] values = call.payload();
    return MonoCalls.call(call.engine(), plan, call.key(), call.scope(), values, body::get, storeCalls)
        .onErrorMap(FingerprintException.class, e -> call.fingerprintError(e, values))
        .map(result -> new CallResult<>((T) result.value(), result.outcome()));
  }
}
