package io.idempotent.testkit;

/**
 * A package-private exception class with a package-private constructor: {@link IdempotencyStoreContract}
 * checks that a replay recreates it all the same.
 */
class Concealed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  Concealed(String message) {
    super(message);
  }
}
