package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.runtime.Idempotency;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Idempotency#lastOutcome()} describes the call that just ended, also when it threw: a web layer
 * marks replayed error responses with it, so a value left over from an earlier call would mislead.
 */
class LastOutcomeTest {

  private final PaymentService service = new PaymentService();

  @AfterEach
  void tearDown() {
    Idempotency.uninstall();
  }

  @Test
  void lastOutcome_freshFinalFailureAfterAReplay_isExecuted() {
    Fixture.fakeTime();
    service.charge("o-1", 100);
    service.charge("o-1", 100);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);

    assertThatThrownBy(() -> service.chargeCard("o-2", 5000)).isInstanceOf(Declined.class);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);

    assertThatThrownBy(() -> service.chargeCard("o-2", 5000)).isInstanceOf(Declined.class);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
  }

  @Test
  void lastOutcome_releasedFailureAfterAReplay_isExecuted() {
    Fixture.fakeTime();
    service.charge("o-1", 100);
    service.charge("o-1", 100);
    service.nextFailure = new IllegalStateException("gateway down");
    assertThatThrownBy(() -> service.charge("o-3", 100)).isInstanceOf(IllegalStateException.class);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
  }

  @Test
  void lastOutcome_callRefusedWithoutRunning_isNull() {
    Fixture.fakeTime();
    service.charge("o-1", 100);
    service.charge("o-1", 100);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThatThrownBy(() -> service.charge("o-1", 999)).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(Idempotency.lastOutcome()).isNull();
  }
}
