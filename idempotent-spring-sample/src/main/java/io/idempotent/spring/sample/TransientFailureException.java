package io.idempotent.spring.sample;

/** A failure worth retrying: a timeout, a dropped connection, a 503 from a remote service. */
public class TransientFailureException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public TransientFailureException(String message) {
    super(message);
  }
}
