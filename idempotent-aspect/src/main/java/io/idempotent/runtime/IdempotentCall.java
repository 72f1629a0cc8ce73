package io.idempotent.runtime;

import io.idempotent.CallResult;
import io.idempotent.CheckedSupplier;
import io.idempotent.Effects;
import io.idempotent.OnInProgress;
import io.idempotent.internal.CallPlan;
import io.idempotent.internal.FingerprintException;
import io.idempotent.internal.IdempotencyEngine;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A programmatic idempotent call, for code that is not woven: the same guarantees as {@link
 * io.idempotent.Idempotent}. Build one per call; not thread-safe.
 *
 * <pre>{@code
 * Receipt r = idempotency.call("payments.charge", Receipt.class)
 *     .key(orderId)
 *     .scope(userId)
 *     .payload(orderId, amount)
 *     .run(() -> gateway.charge(orderId, amount));
 * }</pre>
 */
public final class IdempotentCall<T> {

  private final IdempotencyEngine engine;
  private final String name;
  private final Type resultType;
  private @Nullable String key;
  private @Nullable String scope;
  private Object @Nullable [] payload;
  private @Nullable Duration ttl;
  private @Nullable Duration lease;
  private @Nullable Duration waitTimeout;
  private @Nullable Duration maxRunTime;
  private OnInProgress onInProgress = OnInProgress.THROW;
  private Class<? extends Throwable>[] finalExceptions = emptyExceptions();
  private String store = "";
  private Effects effects = Effects.UNDECLARED;

  IdempotentCall(IdempotencyEngine engine, String name, Type resultType) {
    this.engine = engine;
    this.name = Objects.requireNonNull(name, "name");
    this.resultType = Objects.requireNonNull(resultType, "resultType");
  }

  /** The idempotency key (required; null or blank is refused when the call runs). */
  public IdempotentCall<T> key(String key) {
    this.key = key;
    return this;
  }

  /** The scope (tenant, user) the key belongs to. */
  public IdempotentCall<T> scope(String scope) {
    this.scope = Objects.requireNonNull(scope, "scope");
    return this;
  }

  /**
   * The values whose fingerprint must match on a replay; without it, payloads are not checked. Values
   * are compared by state: plain objects by their fields, records by their components. Values with no
   * value identity (lambdas, threads, streams, connections...) are refused when the call runs, before
   * the body does ({@link io.idempotent.IdempotencyConfigurationException}).
   */
  public IdempotentCall<T> payload(Object... values) {
    this.payload = values.clone();
    return this;
  }

  public IdempotentCall<T> ttl(Duration ttl) {
    this.ttl = ttl;
    return this;
  }

  public IdempotentCall<T> lease(Duration lease) {
    this.lease = lease;
    return this;
  }

  /**
   * How long the body may hold the key while it runs (for a {@code CompletionStage} result: until the
   * stage completes); past it the lease is no longer renewed. Default: the TTL.
   */
  public IdempotentCall<T> maxRunTime(Duration maxRunTime) {
    this.maxRunTime = maxRunTime;
    return this;
  }

  public IdempotentCall<T> onInProgress(OnInProgress policy) {
    this.onInProgress = Objects.requireNonNull(policy, "policy");
    return this;
  }

  public IdempotentCall<T> waitTimeout(Duration timeout) {
    this.waitTimeout = timeout;
    return this;
  }

  /** Exceptions that are final business outcomes, recorded and replayed as for {@link io.idempotent.Idempotent#finalExceptions()}. */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is copied, never handed out
  public final IdempotentCall<T> finalExceptions(Class<? extends Throwable>... types) {
    this.finalExceptions = types.clone();
    return this;
  }

  public IdempotentCall<T> store(String storeName) {
    this.store = Objects.requireNonNull(storeName, "storeName");
    return this;
  }

  /** Where the call's effects live, relative to a transaction the caller has open ({@link io.idempotent.Idempotent#effects()}). */
  public IdempotentCall<T> effects(Effects effects) {
    this.effects = Objects.requireNonNull(effects, "effects");
    return this;
  }

  /** Runs {@code body} at most once for this key and returns its (possibly replayed) result. */
  public <X extends Exception> T run(CheckedSupplier<? extends T, X> body) throws X {
    return execute(body).value();
  }

  /** Like {@link #run} but also tells whether the result was replayed. */
  @SuppressWarnings("unchecked")
  public <X extends Exception> CallResult<T> execute(CheckedSupplier<? extends T, X> body) throws X {
    CallPlan plan;
    try {
      plan = plan(body.getClass().getClassLoader());
    } catch (RuntimeException | Error e) {
      IdempotencyEngine.refusedBeforeTheEngine(); // the plan refuses the call
      throw e;
    }
    Object[] values = payload;
    try {
      IdempotencyEngine.Result result = engine.call(plan, key, scope, values, body::get);
      return new CallResult<>((T) result.value(), result.outcome());
    } catch (FingerprintException e) {
      throw fingerprintError(e, values);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw (X) t; // only the body's checked exception can reach here
    }
  }

  /** This call's plan, as built now; {@code classLoader} is the body's. */
  CallPlan plan(@Nullable ClassLoader classLoader) {
    return new CallPlan(name, name, store, ttl, lease, waitTimeout, onInProgress, finalExceptions,
        payload != null, scope != null, resultType, classLoader, maxRunTime, effects);
  }

  IdempotencyEngine engine() {
    return engine;
  }

  @Nullable String key() {
    return key;
  }

  @Nullable String scope() {
    return scope;
  }

  Object @Nullable [] payload() {
    return payload;
  }

  /** A payload value that cannot be fingerprinted, named by its place in {@code values}. */
  RuntimeException fingerprintError(FingerprintException e, Object @Nullable [] values) {
    if (values != null && e.isAbout(values)) {
      String label = "payload[" + e.argumentIndex() + "]";
      return e.toConfigurationError("the call " + name, label, label, "payload(...)");
    }
    return e;
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Throwable>[] emptyExceptions() {
    return (Class<? extends Throwable>[]) new Class<?>[0];
  }
}
