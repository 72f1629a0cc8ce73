package io.idempotent.examples.shop;

/**
 * A dependency is briefly unavailable: a transient failure. Not declared final anywhere, so the
 * idempotency key is released and a retry with the same key runs again.
 */
public class ServiceUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ServiceUnavailableException(String message) {
    super(message);
  }
}
