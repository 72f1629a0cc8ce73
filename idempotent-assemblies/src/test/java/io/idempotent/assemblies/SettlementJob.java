package io.idempotent.assemblies;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A scheduled job as applications write it: no arguments, fired by each instance's scheduler; it settles the
 * current period through a private method idempotent on the period, so that the instances settle each period
 * once between them. How its effects are declared is the job's configuration.
 */
public class SettlementJob {

  private final Clock clock;
  private final Payments payments = new Payments();
  private final ThreadLocal<Payment> lastSettlement = new ThreadLocal<>();
  private volatile Effects effects = Effects.UNDECLARED;
  private volatile boolean nested;

  public SettlementJob(Clock clock) {
    this.clock = clock;
  }

  /** The period an instant falls in: the hour, as the job's key. */
  static String period(Instant instant) {
    return "settlement " + instant.truncatedTo(ChronoUnit.HOURS);
  }

  void configure(Effects declared, boolean nestedSettlement) {
    this.effects = declared;
    this.nested = nestedSettlement;
  }

  /** What the last firing on this thread settled (or replayed). */
  Payment lastSettlement() {
    return lastSettlement.get();
  }

  /** The scheduled method. */
  public void settle() {
    String period = period(clock.instant());
    lastSettlement.set(switch (effects) {
      case UNDECLARED -> settleUndeclared(period);
      case TRANSACTIONAL -> settleTransactional(period);
      case EXTERNAL -> settleExternal(period);
    });
  }

  @Idempotent(key = "#period")
  private Payment settleUndeclared(String period) {
    return settlement(period, Effects.UNDECLARED);
  }

  @Idempotent(key = "#period", effects = Effects.TRANSACTIONAL)
  private Payment settleTransactional(String period) {
    return settlement(period, Effects.TRANSACTIONAL);
  }

  @Idempotent(key = "#period", effects = Effects.EXTERNAL)
  private Payment settleExternal(String period) {
    return settlement(period, Effects.EXTERNAL);
  }

  private Payment settlement(String period, Effects declared) {
    if (nested) {
      payments.pay(declared, false, CellRun.innerKey(period));
    }
    return Business.pay(period, declared);
  }
}
