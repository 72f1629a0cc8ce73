package com.example.docs.reactive;

import io.idempotent.CallResult;
import io.idempotent.Idempotent;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotentMono;
import reactor.core.publisher.Mono;

/** docs/REACTIVE.md: a woven method that returns a Mono, and the same call made programmatically. */
public class ReactivePayments {

  /** A receipt of a charge. */
  public record Receipt(String orderId, long amountCents) {}

  /** A final answer of the card network: recorded, never retried. */
  public static class CardDeclinedException extends RuntimeException {
    public CardDeclinedException(String message) {
      super(message);
    }
  }

  /** A reactive payment client. */
  public interface Gateway {
    Mono<Receipt> charge(String orderId, long amountCents);
  }

  private final Gateway gateway;
  private final Idempotency idempotency;

  public ReactivePayments(Gateway gateway, Idempotency idempotency) {
    this.gateway = gateway;
    this.idempotency = idempotency;
  }

  // README snippet: reactive-method

  public Mono<CallResult<Receipt>> chargeWithoutWeaving(String orderId, long amountCents) {
    // README snippet: reactive-call
    return charged;
  }
}
