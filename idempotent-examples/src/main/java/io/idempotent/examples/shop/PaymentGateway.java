package io.idempotent.examples.shop;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake payment provider: the external system whose side effects the demo counts. Every successful
 * charge moves money once; the card {@link #DECLINED_CARD} is always declined. It has no idempotency of
 * its own, like many real gateways' older APIs, so any double call shows up in its counts. Thread-safe.
 */
public final class PaymentGateway {

  /** A card number the gateway declines. */
  public static final String DECLINED_CARD = "4000 0000 0000 0002";

  private final Duration latency;
  private final AtomicInteger charges = new AtomicInteger();
  private final AtomicInteger declines = new AtomicInteger();
  private final Map<String, AtomicInteger> chargesByReference = new ConcurrentHashMap<>();

  /** A gateway that answers at once. */
  public PaymentGateway() {
    this(Duration.ZERO);
  }

  /** A gateway that takes {@code latency} to answer, so that concurrent duplicates overlap. */
  public PaymentGateway(Duration latency) {
    this.latency = latency;
  }

  /**
   * Charges {@code card}.
   *
   * @throws CardDeclinedException for {@link #DECLINED_CARD}
   */
  public Receipt charge(String reference, String card, long amountCents) {
    Pause.of(latency);
    if (DECLINED_CARD.equals(card)) {
      declines.incrementAndGet();
      throw new CardDeclinedException("Card declined: insufficient funds");
    }
    charges.incrementAndGet();
    chargesByReference.computeIfAbsent(reference, r -> new AtomicInteger()).incrementAndGet();
    return new Receipt("rcpt_" + UUID.randomUUID().toString().substring(0, 8), reference, amountCents);
  }

  /** Successful charges: money moved. */
  public int charges() {
    return charges.get();
  }

  /** Declined attempts. */
  public int declines() {
    return declines.get();
  }

  /** Every request that reached the gateway, charged or declined. */
  public int calls() {
    return charges.get() + declines.get();
  }

  /** Successful charges for one reference (an order id). */
  public int chargesFor(String reference) {
    AtomicInteger n = chargesByReference.get(reference);
    return n == null ? 0 : n.get();
  }
}
