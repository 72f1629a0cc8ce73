package io.idempotent.internal;

import io.idempotent.IdempotencyResultException;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.Constructor;

/**
 * Recreates a stored final failure as a new exception of the same type with the same message. Only
 * types that are one of the plan's declared final exception types, or a subclass of one, are ever
 * instantiated: stored data cannot name an arbitrary class.
 */
final class FailureReplay {

  private FailureReplay() {}

  static Throwable recreate(CallPlan plan, StoredOutcome outcome) {
    Class<? extends Throwable> type = allowedType(plan, outcome.failureType());
    if (type == null) {
      throw new IdempotencyResultException(
          "The stored final failure of " + plan.description + " has type " + outcome.failureType()
              + ", which is not one of its declared final exceptions; refusing to recreate it", null);
    }
    Throwable t = instantiate(type, outcome.failureMessage());
    if (t == null) {
      throw new IdempotencyResultException(
          "Cannot recreate the stored final failure " + type.getName() + " of " + plan.description
              + ": it has no public (String) or () constructor", null);
    }
    return t;
  }

  private static Class<? extends Throwable> allowedType(CallPlan plan, String name) {
    for (Class<? extends Throwable> declared : plan.finalExceptions) {
      if (declared.getName().equals(name)) {
        return declared;
      }
    }
    for (Class<? extends Throwable> declared : plan.finalExceptions) {
      Class<?> c = loadWithoutInitialising(name, declared.getClassLoader());
      if (c != null && declared.isAssignableFrom(c)) {
        return c.asSubclass(Throwable.class);
      }
    }
    return null;
  }

  private static Class<?> loadWithoutInitialising(String name, ClassLoader loader) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null; // not visible from this loader
    }
  }

  private static Throwable instantiate(Class<? extends Throwable> type, String message) {
    Throwable t = construct(type, new Class<?>[] {String.class}, message);
    return t != null ? t : construct(type, new Class<?>[0]);
  }

  private static Throwable construct(Class<? extends Throwable> type, Class<?>[] parameters, Object... args) {
    try {
      Constructor<? extends Throwable> c = type.getConstructor(parameters);
      return c.newInstance(args);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // no such public constructor, or it failed
    }
  }
}
