package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import io.idempotent.IdempotencyKeyReusedException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

@SpringBootTest
class PaymentsTest {

  @Autowired
  Payments payments;

  @Autowired
  AtomicInteger charges;

  @Test
  void aRetriedChargeReplaysAndAReusedKeyIsRefused() {
    String order = UUID.randomUUID().toString();
    int before = charges.get();

    Receipt first = payments.charge(new ChargeRequest(order, 1999));
    Receipt retry = payments.charge(new ChargeRequest(order, 1999));

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(retry).isEqualTo(first).isEqualTo(new Receipt(order, 1999, before + 1));
    assertThatThrownBy(() -> payments.charge(new ChargeRequest(order, 5000)))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(charges.get() - before).isEqualTo(1);
  }
}
