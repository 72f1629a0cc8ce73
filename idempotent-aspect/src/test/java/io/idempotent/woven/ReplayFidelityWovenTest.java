package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Woven methods: recorded final exceptions come back as thrown; what cannot come back is refused first. */
class ReplayFidelityWovenTest {

  private final CouponService coupons = new CouponService();
  private final UnreplayableService unreplayable = new UnreplayableService();

  @BeforeEach
  void install() {
    Fixture.fakeTime(); // outcomes kept as JSON, like a persistent store
  }

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void finalException_applicationSubclassOfDeclaredJdkType_replaysAsItself() {
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> coupons.redeem("SPRING"))
          .isExactlyInstanceOf(PaymentRefusals.InvalidCoupon.class).hasMessage("coupon SPRING expired");
    }
    assertThat(coupons.runs).hasValue(1);
  }

  @Test
  void finalException_formattingItsOwnMessage_replaysWithTheSameMessageAndField() {
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> coupons.charge("51"))
          .isExactlyInstanceOf(PaymentRefusals.CardDeclined.class).hasMessage("card declined: 51")
          .satisfies(e -> assertThat(((PaymentRefusals.CardDeclined) e).code()).isEqualTo("51"));
    }
    assertThat(coupons.runs).hasValue(1);
  }

  @Test
  void undecodableReturnType_isRefusedBeforeTheMethodRuns() {
    assertThatThrownBy(() -> unreplayable.quote("q-1"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("UnreplayableService.quote")
        .hasMessageContaining(UnreplayableService.Quote.class.getName());
    assertThat(unreplayable.runs).hasValue(0);
  }

  @Test
  void unrecreatableFinalExceptionType_isRefusedBeforeTheMethodRuns() {
    assertThatThrownBy(() -> unreplayable.refuse("r-1"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("UnreplayableService.refuse")
        .hasMessageContaining(UnreplayableService.Refusal.class.getName());
    assertThat(unreplayable.runs).hasValue(0);
  }

  @Test
  void validate_reportsUndecodableResultsAndUnrecreatableFinalExceptions() {
    assertThatThrownBy(() -> Idempotency.validate(UnreplayableService.class))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("UnreplayableService.quote")
        .hasMessageContaining("UnreplayableService.refuse");
    Idempotency.validate(CouponService.class);
  }
}
