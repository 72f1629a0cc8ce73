package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreKeyRules;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Private methods, self-calls, nested calls, scopes, payload options, named stores and the off switch. */
class CallSitesTest {

  private final PaymentService service = new PaymentService();

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void privateMethod_reachedBySelfInvocation_isProtected() {
    Fixture.fakeTime();
    assertThat(service.placeOrder("o-1")).isEqualTo("reserved o-1+reserved o-1");
    assertThat(service.placeOrder("o-1")).isEqualTo("reserved o-1+reserved o-1");
    assertThat(service.runs("stock:o-1")).isEqualTo(1);
  }

  @Test
  void nestedIdempotentCalls_areIndependent() {
    Fixture.fakeTime();
    service.charge("o-1", 10); // the inner key already completed
    assertThat(service.checkout("o-1", 10)).isEqualTo("checked out o-1");
    assertThat(Idempotency.lastOutcome()).as("the outer call ran").isEqualTo(CallOutcome.EXECUTED);
    assertThat(service.checkout("o-1", 10)).isEqualTo("checked out o-1");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs("checkout:o-1")).isEqualTo(1);
    assertThat(service.runs("o-1")).isEqualTo(1);
    service.checkout("o-2", 20);
    assertThat(service.runs("o-2")).isEqualTo(1);
  }

  @Test
  void scope_keepsTenantsApart() {
    Fixture.fakeTime();
    Receipt order = new Receipt("o-1", 10, Instant.EPOCH);
    assertThat(service.refund("tenant-a", order)).isEqualTo("refunded o-1 for tenant-a");
    assertThat(service.refund("tenant-b", order)).isEqualTo("refunded o-1 for tenant-b");
    assertThat(service.refund("tenant-a", order)).isEqualTo("refunded o-1 for tenant-a");
    assertThat(service.runs("tenant-a/o-1")).isEqualTo(1);
    assertThat(service.runs("tenant-b/o-1")).isEqualTo(1);
  }

  @Test
  void checkPayloadFalse_replaysDespiteDifferentArguments() {
    Fixture.fakeTime();
    assertThat(service.noPayloadCheck("o-1", 1)).isEqualTo("o-1:1");
    assertThat(service.noPayloadCheck("o-1", 2)).isEqualTo("o-1:1");
    assertThat(service.runs("o-1")).isEqualTo(1);
  }

  @Test
  void payloadExpressions_fingerprintOnlyTheNamedValues() {
    Fixture.fakeTime();
    service.payloadAmountOnly("o-1", 5, "first note");
    assertThat(service.payloadAmountOnly("o-1", 5, "another note")).isEqualTo("o-1:5");
    assertThatThrownBy(() -> service.payloadAmountOnly("o-1", 6, "first note"))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(service.runs("o-1")).isEqualTo(1);
  }

  @Test
  void namedStore_isUsed_andAnUnknownStoreIsAClearError() {
    InMemoryTestStore primary = new InMemoryTestStore();
    InMemoryTestStore secondary = new InMemoryTestStore();
    Idempotency.install(IdempotencyConfig.builder().store(primary).store("secondary", secondary).build());
    service.onSecondary("o-1");
    assertThat(secondary.claims()).isEqualTo(1);
    assertThat(primary.claims()).isZero();
    Idempotency.install(IdempotencyConfig.builder().store(primary).build());
    assertThatThrownBy(() -> service.onSecondary("o-2")).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("secondary").hasMessageContaining("default");
  }

  @Test
  void disabled_runsEveryCallWithoutTouchingAStore() {
    Idempotency.install(IdempotencyConfig.builder().enabled(false).build());
    service.charge("o-1", 1);
    service.charge("o-1", 1);
    assertThat(service.runs("o-1")).isEqualTo(2);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.UNPROTECTED);
  }

  @Test
  void veryLongKey_isHashedToFitTheStore_andStaysDistinct() {
    InMemoryTestStore store = new InMemoryTestStore() {
      @Override
      public StoreKeyRules keyRules() {
        return StoreKeyRules.any().maxChars(64);
      }
    };
    Idempotency.install(IdempotencyConfig.builder().store(store).build());
    String a = "a".repeat(100_000);
    String b = "a".repeat(99_999) + "b";
    service.charge(a, 1);
    service.charge(b, 1);
    service.charge(a, 1);
    assertThat(service.runs(a)).isEqualTo(1);
    assertThat(service.runs(b)).isEqualTo(1);
  }

  @Test
  void events_neverCarryTheKeyOrPayload() {
    Fixture f = Fixture.fakeTime();
    service.charge("secret-order-4711", 100);
    service.charge("secret-order-4711", 100);
    assertThat(f.events).hasSize(2);
    for (IdempotencyEvent e : f.events) {
      assertThat(e.toString()).doesNotContain("secret-order-4711").contains("PaymentService.charge");
      assertThat(e.keyReference()).hasSize(12);
    }
  }
}
