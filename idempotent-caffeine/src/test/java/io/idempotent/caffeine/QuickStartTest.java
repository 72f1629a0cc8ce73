package io.idempotent.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.Idempotent;
import io.idempotent.runtime.Idempotency;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start, woven the way a user's build weaves it: idempotent-aspect as an aspect
 * library of the aspectj-maven-plugin, the Caffeine store found on the class path.
 */
class QuickStartTest {

  static class Payments {
    final AtomicInteger charges = new AtomicInteger();

    @Idempotent(key = "#orderId")
    public String charge(String orderId, long cents) {
      charges.incrementAndGet();
      return "receipt-" + orderId + "-" + cents;
    }
  }

  @AfterEach
  void reset() {
    Idempotency.uninstall();
  }

  @Test
  void charge_retriedWithTheSameKey_runsOnce_withTheStoreFromTheClassPath() {
    Payments payments = new Payments();
    assertThat(payments.charge("order-42", 1999)).isEqualTo("receipt-order-42-1999");
    assertThat(payments.charge("order-42", 1999)).isEqualTo("receipt-order-42-1999");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(payments.charges).hasValue(1);
    assertThat(Idempotency.global().config().defaultStoreName()).isEqualTo("caffeine");
  }
}
