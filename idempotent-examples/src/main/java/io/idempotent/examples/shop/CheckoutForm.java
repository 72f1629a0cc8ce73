package io.idempotent.examples.shop;

import io.idempotent.IdempotencyTokenException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.OneTimeTokens;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gift-card checkout form protected by pre-issued one-time tokens: rendering the form issues a
 * token into a hidden field; submitting consumes it. Only the first submission of a rendered form goes
 * through; a double click, the back button or a forged token is refused before anything runs.
 * Thread-safe.
 */
public final class CheckoutForm {

  /** The namespace of the form's tokens. */
  public static final String TOKENS = "shop.checkout-form";

  private final OneTimeTokens tokens;
  private final PaymentGateway gateway;
  private final AtomicInteger executions = new AtomicInteger();

  public CheckoutForm(Idempotency idempotency, PaymentGateway gateway) {
    this.tokens = idempotency.tokens(TOKENS);
    this.gateway = gateway;
  }

  /** {@code GET /gift-card}: renders the form with a fresh token, valid for 30 minutes. */
  public String render() {
    return tokens.issue(Duration.ofMinutes(30));
  }

  /**
   * {@code POST /gift-card}: 201 for the first submission of a token; 409 for a token already used;
   * 400 for one that was never issued (or has expired). The token is consumed before the charge, so
   * at most one submission per form reaches the gateway.
   */
  public HttpResponse submit(String token, User user, String card, long amountCents) {
    try {
      tokens.consume(token);
    } catch (IdempotencyTokenException e) {
      return e.reason() == IdempotencyTokenException.Reason.ALREADY_USED
          ? new HttpResponse(409, false, "This form was already submitted")
          : new HttpResponse(400, false, "Unknown or expired form; reload the page");
    }
    executions.incrementAndGet();
    Receipt receipt = gateway.charge("gift-card/" + user.id(), card, amountCents);
    return new HttpResponse(201, false, receipt.receiptId());
  }

  /** How many submissions went through in this process. */
  public int executions() {
    return executions.get();
  }
}
