package io.idempotent;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method safe to call more than once: the first call with a given key runs the method and
 * records its outcome; later calls with the same key replay that outcome without running the method.
 *
 * <pre>{@code
 * @Idempotent(key = "#orderId", scope = "#user.id", ttl = "PT24H")
 * public Receipt charge(String orderId, User user, Money amount) { ... }
 * }</pre>
 *
 * <p>The aspect is woven at compile time, so the annotation works on private methods, self-calls and
 * any layer of an application. Expressions use a small language: {@code #param}, {@code #p0} / {@code
 * #a0}, property paths such as {@code #order.id} (record component, {@code get}/{@code is} getter,
 * accessor method, then field of any visibility), string literals {@code 'refund:'} and {@code +}
 * concatenation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {

  /**
   * Expression for the idempotency key, evaluated against the method's arguments. Required. Values are
   * used as text: arrays and classes that do not override {@code toString()} are refused (their text
   * is an identity hash), so name a property such as {@code #req.id}.
   */
  String key();

  /**
   * Namespace of the key, stable across refactors. Empty means the declaring class name, "." and the
   * method name with its erased parameter types, such as {@code com.shop.Payments.charge(String, Money)},
   * so that overloads never share records.
   */
  String name() default "";

  /**
   * Optional expression (tenant, user) that becomes part of the stored key, so one scope cannot
   * replay another scope's result for the same key. Empty means no scope.
   */
  String scope() default "";

  /** How long a completed outcome is kept and replayed, ISO-8601 ({@code PT24H}). Empty means the configured default. */
  String ttl() default "";

  /**
   * How long an in-progress claim holds before another caller may take it over, ISO-8601. Renewed
   * automatically while the method runs. Empty means the configured default.
   */
  String lease() default "";

  /**
   * How long the method may run holding its key, ISO-8601. Past it the lease is no longer renewed, so
   * once the lease runs out another caller may take the key over; for a {@code CompletionStage} that
   * never completes this is what frees the key. Empty means the method's TTL.
   */
  String maxRunTime() default "";

  /** What a duplicate call does while the first one is still running. */
  OnInProgress onInProgress() default OnInProgress.THROW;

  /** With {@link OnInProgress#WAIT}: how long to wait, ISO-8601. Empty means the configured default. */
  String waitTimeout() default "";

  /**
   * Exceptions that are final business outcomes: they are stored and later calls with the same key
   * rethrow an equivalent exception without running the method. Any other exception releases the key
   * so that the caller may retry.
   *
   * <p>An equivalent exception has the thrown one's class (a declared type or a subclass of it), message
   * and own field values; its cause is a {@link ReplayedCause} naming the original cause's class and
   * message. It is built through a constructor whose parameters are named after the fields, or {@code
   * (String)}, {@code (String, Throwable)} or {@code ()}. A thrown exception no constructor gives back
   * faithfully is not recorded: the key is released (with a warning) and a retry runs again. A declared
   * type with no such constructor is refused before the method first runs.
   */
  Class<? extends Throwable>[] finalExceptions() default {};

  /** Whether a call with the same key but different arguments is rejected ({@link IdempotencyKeyReusedException}). */
  boolean checkPayload() default true;

  /**
   * Expressions whose values make up the payload fingerprint. Empty means all arguments except
   * infrastructure (a JDBI {@code Handle}, a JDBC {@code Connection}, a {@code DataSource}...). Values
   * are compared by state: records by components, other objects by their non-transient fields.
   * Values with no value identity (threads, streams, lambdas...) are refused.
   */
  String[] payload() default {};

  /** Name of the store to use. Empty means the configured default store. */
  String store() default "";

  /**
   * Where the method's effects live, relative to a transaction the caller has open on the store's
   * database: {@link Effects#TRANSACTIONAL} (its writes are in that transaction: the outcome commits or
   * rolls back with them) or {@link Effects#EXTERNAL} (an external API, a message: the outcome survives a
   * rollback). Undeclared, the store's default decides, and a table store that does not join transactions
   * refuses a call made inside one.
   */
  Effects effects() default Effects.UNDECLARED;
}
