package io.idempotent.internal;

import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.OnInProgress;
import io.idempotent.internal.config.ConfigText;
import io.idempotent.spi.ResultCodec;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Everything about a call site that does not change from call to call: namespace, store, durations,
 * policies and the shape of the result. Built once per annotated method (or programmatic call
 * builder). Immutable.
 */
public final class CallPlan {

  /** How the method's result is shaped. */
  enum ResultShape {
    VOID,
    PRIMITIVE,
    OPTIONAL,
    STAGE,
    /** A Reactor {@code Mono}: claimed when subscribed, run by {@link AsyncCall}. */
    MONO,
    OBJECT
  }

  /** The reactive types, named so this class loads without Reactor on the class path. */
  static final String MONO_TYPE = "reactor.core.publisher.Mono";

  static final String FLUX_TYPE = "reactor.core.publisher.Flux";

  final String name;
  final String description;
  final String storeName;
  final Duration ttl;
  final Duration lease;
  final Duration waitTimeout;
  /** How long the call may hold its key while it runs; null means its TTL. */
  final Duration maxRunTime;
  final OnInProgress onInProgress;
  final Class<? extends Throwable>[] finalExceptions;
  final boolean checkPayload;
  final boolean scoped;
  final Type resultType;
  final ResultShape shape;
  /** Whether no value of the result type can change, so a store may keep and replay the object itself. */
  final boolean immutableResult;
  /** Where the method's effects live, relative to a transaction the caller has open. */
  final Effects effects;
  /** Where the call site's classes live: a recorded subclass of a declared final exception is looked up here. */
  final ClassLoader classLoader;
  /** The codec that accepted the result type; checked again only when the configured codec changes. */
  private volatile ResultCodec acceptedBy;

  /**
   * @param classLoader the loader of the call site's classes (the annotated method's class), or null
   * @param maxRunTime how long the call may hold its key while it runs, or null for its TTL
   * @param effects where the method's effects live, relative to a transaction the caller has open
   * @throws IdempotencyConfigurationException naming the method when a declared final exception type
   *     could never be recreated on a replay
   */
  public CallPlan(
      String name,
      String description,
      String storeName,
      Duration ttl,
      Duration lease,
      Duration waitTimeout,
      OnInProgress onInProgress,
      Class<? extends Throwable>[] finalExceptions,
      boolean checkPayload,
      boolean scoped,
      Type declaredReturnType,
      ClassLoader classLoader,
      Duration maxRunTime,
      Effects effects) {
    if (name == null || name.isBlank()) {
      throw new IdempotencyConfigurationException("The idempotency name of " + description + " is blank");
    }
    this.name = name;
    this.description = description;
    this.storeName = storeName == null ? "" : storeName;
    this.ttl = DurationLimits.ttl(ttl, "The ttl of " + description);
    this.lease = DurationLimits.lease(lease, "The lease of " + description);
    this.waitTimeout = DurationLimits.waitTimeout(waitTimeout, "The waitTimeout of " + description);
    this.maxRunTime = DurationLimits.ttl(maxRunTime, "The maxRunTime of " + description);
    this.onInProgress = onInProgress;
    this.finalExceptions = finalExceptions.clone();
    this.checkPayload = checkPayload;
    this.scoped = scoped;
    this.classLoader = classLoader;
    this.effects = effects == null ? Effects.UNDECLARED : effects;
    for (Class<? extends Throwable> type : this.finalExceptions) {
      String why = FailureReplay.unrecreatable(type);
      if (why != null) {
        throw new IdempotencyConfigurationException(
            "@Idempotent(finalExceptions = " + type.getName() + ".class) of " + description
                + " cannot be replayed: " + why);
      }
    }
    Class<?> raw = rawType(declaredReturnType);
    if (raw == void.class || raw == Void.class) {
      shape = ResultShape.VOID;
      resultType = Void.class;
    } else if (raw.isPrimitive()) {
      shape = ResultShape.PRIMITIVE;
      resultType = declaredReturnType;
    } else if (raw == Optional.class) {
      shape = ResultShape.OPTIONAL;
      resultType = declaredReturnType;
    } else if (CompletionStage.class.isAssignableFrom(raw)) {
      if (!raw.isAssignableFrom(CompletableFuture.class)) {
        throw new IdempotencyConfigurationException(unsupportedStage(description, raw.getName()));
      }
      shape = ResultShape.STAGE;
      resultType = stageValueType(declaredReturnType);
    } else if (raw.getName().equals(MONO_TYPE)) {
      shape = ResultShape.MONO;
      resultType = stageValueType(declaredReturnType);
    } else if (raw.getName().equals(FLUX_TYPE) || isPublisher(raw)) {
      throw new IdempotencyConfigurationException(unsupportedPublisher(description, raw.getName()));
    } else {
      shape = ResultShape.OBJECT;
      resultType = declaredReturnType;
    }
    immutableResult = ImmutableTypes.isImmutable(resultType);
    if (onInProgress == OnInProgress.SKIP && shape == ResultShape.PRIMITIVE) {
      throw new IdempotencyConfigurationException(skipOnPrimitive(description));
    }
  }

  static String unsupportedStage(String description, String typeName) {
    return description + " returns " + typeName + "; asynchronous idempotent methods must return"
        + " CompletionStage or CompletableFuture";
  }

  static String unsupportedPublisher(String description, String typeName) {
    return description + " returns " + typeName + ", a stream of values; an idempotent call records one"
        + " outcome, so it must return a Mono (collect a Flux with collectList() into a Mono<List<T>>)";
  }

  /** Whether {@code raw} is a Reactive Streams publisher other than a Mono (looked up by name). */
  private static boolean isPublisher(Class<?> raw) {
    for (Class<?> c = raw; c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        if (i.getName().equals("org.reactivestreams.Publisher") || isPublisher(i)) {
          return true;
        }
      }
    }
    return false;
  }

  static String skipOnPrimitive(String description) {
    return description + " uses onInProgress = SKIP but returns a primitive; SKIP needs a void, Optional or"
        + " nullable result";
  }

  /**
   * Parses an annotation duration attribute; empty means "use the configured default" (null). Its
   * bounds are checked once, by the constructor ({@link DurationLimits}).
   */
  public static Duration duration(String text, String attribute, String description) {
    return ConfigText.duration(text, "@Idempotent(" + attribute + ") of " + description);
  }

  public String name() {
    return name;
  }

  /**
   * Refuses a result type that {@code codec} could record but never read back, before the method runs;
   * remembers the codec that accepted it.
   *
   * @throws IdempotencyConfigurationException naming the method and the type and saying why
   */
  public void checkResultType(ResultCodec codec) {
    if (acceptedBy == codec || shape == ResultShape.VOID) {
      return;
    }
    try {
      codec.checkDecodable(resultType);
    } catch (RuntimeException e) {
      throw new IdempotencyConfigurationException(
          description + " returns " + resultType.getTypeName() + ", which cannot be replayed from a store: "
              + e.getMessage());
    }
    acceptedBy = codec;
  }

  boolean isFinal(Throwable t) {
    for (Class<? extends Throwable> c : finalExceptions) {
      if (c.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static Type stageValueType(Type t) {
    if (t instanceof ParameterizedType p) {
      Type arg = p.getActualTypeArguments()[0];
      if (arg instanceof WildcardType w) {
        return w.getUpperBounds()[0];
      }
      return arg;
    }
    return Object.class;
  }

  static Class<?> rawType(Type t) {
    if (t instanceof Class<?> c) {
      return c;
    }
    if (t instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    return Object.class;
  }
}
