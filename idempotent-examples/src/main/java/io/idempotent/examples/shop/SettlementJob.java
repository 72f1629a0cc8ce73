package io.idempotent.examples.shop;

import io.idempotent.CallOutcome;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import java.time.Duration;
import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daily settlement as one application instance runs it. Every instance's scheduler triggers it,
 * often, and possibly while a run is still going; it runs once per day across all instances and the
 * other triggers skip. Thread-safe.
 *
 * <p>In an application this is one annotated method, exactly equivalent to the call below:
 *
 * <pre>{@code
 * @Idempotent(name = "shop.settlement.daily", key = "#day", ttl = "P7D", lease = "PT1.2S",
 *     onInProgress = OnInProgress.SKIP)
 * public void dailySettlement(LocalDate day) { ... }
 * }</pre>
 *
 * The demo uses the programmatic API instead because it plays three instances in one JVM: the woven
 * aspect serves one configuration per JVM (as an instance has), while each instance here needs its
 * own engine on its own pool.
 */
public final class SettlementJob {

  /** The namespace of the settlement's keys. */
  public static final String NAME = "shop.settlement.daily";

  private final String instance;
  private final Idempotency idempotency;
  private final Ledger ledger;
  private final Duration runTime;
  private final Duration lease;
  private final AtomicInteger executions = new AtomicInteger();

  /**
   * @param runTime how long one settlement takes
   * @param lease how long a run holds the day without renewal; the engine renews it every third of it
   *     while the run goes on, so a run may take longer than its lease
   */
  public SettlementJob(String instance, Idempotency idempotency, Ledger ledger, Duration runTime, Duration lease) {
    this.instance = instance;
    this.idempotency = idempotency;
    this.ledger = ledger;
    this.runTime = runTime;
    this.lease = lease;
  }

  /**
   * What the scheduler calls on every trigger. Settles {@code day} unless it is settled (a replay: the
   * call returns at once) or being settled elsewhere (skipped).
   *
   * @return how this trigger went: EXECUTED, REPLAYED or SKIPPED
   */
  public CallOutcome dailySettlement(LocalDate day) {
    return idempotency.call(NAME, Void.class)
        .key(day.toString())
        .payload(day.toString())
        .ttl(Duration.ofDays(7)) // the key names the day; the record outlives it
        .lease(lease)
        .onInProgress(OnInProgress.SKIP)
        .execute(() -> settle(day))
        .outcome();
  }

  private Void settle(LocalDate day) {
    executions.incrementAndGet();
    Pause.of(runTime); // totting up the day's payments
    ledger.record(day, instance, 100_000L + day.getDayOfYear());
    return null;
  }

  public String instance() {
    return instance;
  }

  /** How many settlements this instance ran. */
  public int executions() {
    return executions.get();
  }
}
