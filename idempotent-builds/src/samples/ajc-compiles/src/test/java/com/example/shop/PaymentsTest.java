package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import io.idempotent.Idempotent;
import io.idempotent.IdempotencyKeyReusedException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PaymentsTest {

  private final Payments payments = new Payments();
  private final AtomicInteger testRuns = new AtomicInteger();

  @Test
  void aRetryReplaysAndAReusedKeyIsRefused() {
    String order = UUID.randomUUID().toString();

    Receipt first = payments.charge(order, 1999);
    Receipt retry = payments.charge(order, 1999);

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(retry).isEqualTo(first).isEqualTo(new Receipt(order, 1999, 1));
    assertThatThrownBy(() -> payments.charge(order, 5000)).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(payments.charges()).isEqualTo(1);
  }

  @Test
  void aPrivateSelfCallIsProtected() {
    String order = UUID.randomUUID().toString();

    payments.chargeWithin(order, 700);
    payments.chargeWithin(order, 700);

    assertThat(payments.charges()).isEqualTo(1);
  }

  @Test
  void anIdempotentMethodOfTheTestSourcesIsWovenToo() {
    String key = UUID.randomUUID().toString();

    runOnce(key);
    runOnce(key);

    assertThat(testRuns).hasValue(1);
  }

  @Idempotent(key = "'test:' + #key")
  void runOnce(String key) {
    testRuns.incrementAndGet();
  }
}
