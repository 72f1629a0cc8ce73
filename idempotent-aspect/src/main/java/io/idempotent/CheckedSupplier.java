package io.idempotent;

/** A computation that may throw a checked exception, which passes through unchanged. */
@FunctionalInterface
public interface CheckedSupplier<T, X extends Exception> {
  T get() throws X;
}
