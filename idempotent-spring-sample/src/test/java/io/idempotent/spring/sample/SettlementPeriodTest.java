package io.idempotent.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The period a trigger of the settlement job names: the same on every instance, early or late. */
class SettlementPeriodTest {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void periodStart_aTriggerALittleLateOrEarly_namesTheBoundaryItFiredFor() {
    Instant boundary = Instant.parse("2026-03-01T10:15:00Z");

    assertThat(SettlementJob.periodStart(boundary, MINUTE)).isEqualTo(boundary);
    assertThat(SettlementJob.periodStart(boundary.plusMillis(40), MINUTE)).isEqualTo(boundary);
    assertThat(SettlementJob.periodStart(boundary.minusMillis(3), MINUTE)).isEqualTo(boundary);
    assertThat(SettlementJob.periodStart(boundary.plusSeconds(29), MINUTE)).isEqualTo(boundary);
    assertThat(SettlementJob.periodStart(boundary.plusSeconds(31), MINUTE)).isEqualTo(boundary.plus(MINUTE));
  }

  @Test
  void periodStart_ofASecond() {
    Instant boundary = Instant.parse("2026-03-01T10:15:07Z");

    assertThat(SettlementJob.periodStart(boundary.plusMillis(12), Duration.ofSeconds(1))).isEqualTo(boundary);
    assertThat(SettlementJob.periodStart(boundary.minusMillis(12), Duration.ofSeconds(1))).isEqualTo(boundary);
  }
}
