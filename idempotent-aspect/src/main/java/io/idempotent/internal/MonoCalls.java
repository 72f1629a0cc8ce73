package io.idempotent.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor's {@code Mono} over the engine's asynchronous calls (docs/REACTIVE.md; docs/DESIGN.md §3, "Result shapes"). Loaded
 * only when a call returns a {@code Mono}, so the rest of the library runs without Reactor.
 */
public final class MonoCalls {

  private MonoCalls() {}

  /** Where store calls run by default: Reactor's threads for blocking work, never an event loop. */
  public static Scheduler defaultScheduler() {
    return Schedulers.boundedElastic();
  }

  /**
   * A {@code Mono} that makes one call per subscription: it claims the key when subscribed, then
   * subscribes the {@code Mono} that {@code body} returns with the subscriber's context; cancelling it cancels the body
   * and releases the key. Nothing is claimed until it is subscribed.
   */
  public static Mono<IdempotencyEngine.Result> call(IdempotencyEngine engine, CallPlan plan, String key,
      String scope, Object[] payload, Invocation body, Scheduler storeCalls) {
    Executor executor = storeCalls::schedule;
    return Mono.deferContextual(context -> Mono.fromFuture(AsyncCall.execute(engine, plan, key, scope, payload,
        () -> subscribed((Mono<?>) body.proceed(), context), executor), false));
  }

  /**
   * The woven {@code @Idempotent} method that returns a {@code Mono}: the method runs only when the returned
   * {@code Mono} is subscribed and its key claimed; a null result is an empty {@code Mono}.
   */
  static Mono<Object> method(IdempotencyEngine engine, CallPlan plan, String key, String scope, Object[] payload,
      Invocation invocation, Function<Throwable, Throwable> errors) {
    return call(engine, plan, key, scope, payload, invocation, defaultScheduler())
        .onErrorMap(errors)
        .flatMap(result -> Mono.justOrEmpty(result.value()));
  }

  private static CompletionStage<?> subscribed(Mono<?> mono, reactor.util.context.ContextView context) {
    return mono == null ? CompletableFuture.completedFuture(null) : mono.contextWrite(context).toFuture();
  }
}
