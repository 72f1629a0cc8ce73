package io.idempotent.internal;

import java.lang.reflect.Modifier;

/**
 * Whether a value's {@code toString()} is a value text (its own or inherited from a class that
 * overrides it) rather than {@code Object}'s identity hash, which differs on every call. Thread-safe.
 */
final class ValueText {

  private static final ClassValue<Boolean> HAS_VALUE_TEXT = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      if (type.isArray()) {
        return false;
      }
      try {
        return type.getMethod("toString").getDeclaringClass() != Object.class;
      } catch (NoSuchMethodException e) {
        return true; // primitives: their boxes have a text
      }
    }
  };

  private ValueText() {}

  static boolean hasValueText(Class<?> type) {
    return type.isPrimitive() || HAS_VALUE_TEXT.get(type);
  }

  /** Whether the declared type cannot tell: an interface, an abstract class or Object, whose values may differ. */
  static boolean decidedAtRuntime(Class<?> declared) {
    if (declared.isArray() || declared.isPrimitive()) {
      return false; // both are abstract to reflection, but their text is known
    }
    return declared == Object.class || declared.isInterface() || Modifier.isAbstract(declared.getModifiers());
  }
}
