package io.idempotent.examples.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receives the payment provider's "payment succeeded" callbacks, which it delivers at least once, in any
 * order. Thread-safe.
 */
public class WebhookHandler {

  /** The namespace of {@link #onPaymentSucceeded}. */
  public static final String NAME = "shop.webhooks.payment-succeeded";

  private final Mailer mailer;
  private final AtomicInteger executions = new AtomicInteger();

  public WebhookHandler(Mailer mailer) {
    this.mailer = mailer;
  }

  /**
   * Sends the payment confirmation, once per event. The key is the provider's event id; the payload
   * fingerprint covers only that id, because redeliveries of one event differ in their attempt number.
   * Records are kept for seven days, longer than the provider keeps retrying.
   */
  @Idempotent(name = NAME, key = "#event.id", payload = "#event.id", ttl = "P7D")
  public void onPaymentSucceeded(ProviderEvent event) {
    executions.incrementAndGet();
    mailer.send(event.customer(), "Payment received for " + event.orderId());
  }

  /** How many times the handler's body ran in this process. */
  public int executions() {
    return executions.get();
  }
}
