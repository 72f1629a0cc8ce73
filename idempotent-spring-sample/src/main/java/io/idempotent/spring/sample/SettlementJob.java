package io.idempotent.spring.sample;

import io.idempotent.CallOutcome;
import io.idempotent.Effects;
import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Settles the orders placed up to the start of each period, once per period however many instances of
 * the application run it. Every instance's scheduler fires at the start of each period
 * ({@code sample.settlement.cron}); the {@code @Idempotent} key names the period, so the first instance to
 * claim it settles and the others skip it (while it runs) or replay it (once it committed). Not "not at the
 * same time", as a lock would give, but once: an instance whose trigger fires late, after the work was
 * done, does not do it again.
 *
 * <p>In joined mode the outcome commits with the settlement's rows: if the transaction rolls back, or the
 * instance dies before it commits, the period is free again for the next trigger (the claim of a dead
 * instance once its lease runs out).
 */
@Component
public class SettlementJob {

  private final JdbcTemplate jdbc;
  private final Clock clock;
  private final Duration period;
  private final String instance;

  public SettlementJob(JdbcTemplate jdbc, Clock clock, @Value("${sample.settlement.period}") Duration period,
      @Value("${sample.instance}") String instance) {
    if (period.toMillis() <= 0) {
      throw new IllegalArgumentException("sample.settlement.period must be positive: " + period);
    }
    this.jdbc = jdbc;
    this.clock = clock;
    this.period = period;
    this.instance = instance;
  }

  /** Fired by every instance at the start of each period; records what this instance's attempt did. */
  @Scheduled(cron = "${sample.settlement.cron}")
  @Transactional
  public void settleCurrentPeriod() {
    Instant start = periodStart(clock.instant(), period);
    settle(start);
    CallOutcome outcome = Idempotency.lastOutcome(); // EXECUTED here, else SKIPPED or REPLAYED
    jdbc.update("INSERT INTO settlement_attempt (period, instance, outcome) VALUES (?, ?, ?)",
        start.toString(), instance, String.valueOf(outcome));
  }

  @Idempotent(name = "settlement", key = "#start", ttl = "P2D", onInProgress = OnInProgress.SKIP,
      effects = Effects.TRANSACTIONAL)
  private void settle(Instant start) {
    int settled = jdbc.update("UPDATE shop_order SET settled_in = ? WHERE settled_in IS NULL AND placed_at < ?",
        start.toString(), Timestamp.from(start));
    jdbc.update("INSERT INTO settlement_run (period, instance, orders_settled) VALUES (?, ?, ?)",
        start.toString(), instance, settled);
  }

  /**
   * The period a trigger fired for: the period boundary nearest to {@code now}. A trigger fires at a
   * boundary, a few milliseconds late (or, with clock adjustments, early); rounding to the nearest one names
   * the same period on every instance, where truncating would name the previous period for an early one.
   */
  static Instant periodStart(Instant now, Duration period) {
    long p = period.toMillis();
    return Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli() + p / 2, p) * p);
  }
}
