package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import io.idempotent.IdempotencyKeyReusedException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mapstruct.factory.Mappers;

class CheckoutTest {

  private final AtomicInteger charges = new AtomicInteger();
  private final AtomicInteger refunds = new AtomicInteger();
  private final AtomicInteger settlements = new AtomicInteger();
  private final Checkout checkout =
      new Checkout(Mappers.getMapper(ReceiptMapper.class), charges, refunds, settlements);

  @Test
  void aRetriedChargeReplaysTheFirstReceipt() {
    OrderRequest order = new OrderRequest(UUID.randomUUID().toString(), "ann", 1999);

    Receipt first = checkout.charge(order);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    Receipt retry = checkout.charge(new OrderRequest(order.getId(), "ann", 1999));

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(charges).hasValue(1);
    assertThat(retry).isEqualTo(first).isEqualTo(new Receipt(order.getId(), "ann", 1999, 1));
  }

  @Test
  void theSameOrderIdWithOtherArgumentsIsRefused() {
    String id = UUID.randomUUID().toString();
    checkout.charge(new OrderRequest(id, "ann", 1999));

    assertThatThrownBy(() -> checkout.charge(new OrderRequest(id, "ann", 5000)))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(charges).hasValue(1);
  }

  @Test
  void aPlainParameterKeyReplaysAndRefuses() {
    String id = UUID.randomUUID().toString();

    assertThat(checkout.refund(id, 500)).isEqualTo(500);
    assertThat(checkout.refund(id, 500)).isEqualTo(500);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThatThrownBy(() -> checkout.refund(id, 700)).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(refunds).hasValue(1);
  }

  @Test
  void aPrivateMethodCalledOnItsOwnObjectIsProtected() {
    String day = "day-" + UUID.randomUUID();

    checkout.settle(day);
    checkout.settle(day);

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(settlements).hasValue(1);
  }

  @Test
  void anIdempotentMethodOfTheTestSourcesIsWovenToo() {
    TestOnlyJob job = new TestOnlyJob();
    String key = UUID.randomUUID().toString();

    job.run(key);
    job.run(key);

    assertThat(job.runs()).isEqualTo(1);
  }
}
