package io.idempotent.internal;

/** The protected method body, e.g. {@code pjp::proceed}. */
@FunctionalInterface
public interface Invocation {
  Object proceed() throws Throwable;
}
