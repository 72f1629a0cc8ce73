package io.idempotent.testkit;

/** A package-private exception class with a package-private constructor. */
class Concealed extends RuntimeException {
  Concealed(String message) {
    super(message);
  }
}
