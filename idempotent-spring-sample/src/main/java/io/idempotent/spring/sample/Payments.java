package io.idempotent.spring.sample;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.stereotype.Service;

/**
 * Takes a payment and sends its confirmation, retrying on transient failures with Spring Framework 7's
 * {@code @Retryable} ({@code @EnableResilientMethods} on the application).
 *
 * <p>The retry is advice of the Spring proxy around {@link #payAndConfirm}; the idempotency check is woven
 * into the body of {@link #charge}, so it runs inside every attempt. An attempt whose charge failed
 * released the payment id, so the next attempt charges; an attempt that failed after the charge succeeded
 * (the confirmation did not go out) leaves the charge recorded, so the next attempt replays it and only
 * the confirmation is tried again. The customer is charged once however many attempts it takes.
 */
@Service
public class Payments {

  private final RemoteService provider = new RemoteService("the payment provider");
  private final RemoteService confirmations = new RemoteService("the confirmation service");

  /** Charges once per payment id and sends the confirmation; up to three retries, 20 ms apart. */
  @Retryable(includes = TransientFailureException.class, maxRetries = 3, delay = 20)
  public String payAndConfirm(String paymentId, long cents) {
    String receipt = charge(paymentId, cents); // self-invocation: protected all the same
    confirmations.call();
    return receipt;
  }

  // its effect is a call to the payment provider: recorded on its own, it survives any rollback
  @Idempotent(name = "payments.charge", key = "#paymentId", effects = Effects.EXTERNAL)
  private String charge(String paymentId, long cents) {
    int charge = provider.call();
    return "charge " + charge + ": " + cents + " cents for " + paymentId;
  }

  /** The payment provider stand-in. */
  public RemoteService provider() {
    return provider;
  }

  /** The confirmation service stand-in. */
  public RemoteService confirmations() {
    return confirmations;
  }
}
