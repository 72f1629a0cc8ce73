package io.idempotent.assemblies;

/** The method's own failure (not a final one): the key is released and the caller retries. */
public final class BusinessFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BusinessFailure(String key) {
    super("the payment for " + key + " failed this time");
  }
}
