package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.Idempotent;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start, woven the way a user's build weaves it (idempotent-aspect as an aspect
 * library of the aspectj-maven-plugin), with the Redis store installed.
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

  private final String prefix = TestRedis.uniquePrefix("quickstart");
  private RedisIdempotencyStore store;

  @BeforeEach
  void install() {
    TestRedis.requireReachable();
    store = RedisIdempotencyStore.builder()
        .host(TestRedis.HOST)
        .port(TestRedis.PORT)
        .database(TestRedis.DATABASE)
        .prefix(prefix)
        .build();
    Idempotency.install(IdempotencyConfig.builder().store(store).build());
  }

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
    if (store == null) {
      return;
    }
    store.close();
    TestRedis.deleteAll(prefix);
  }

  @Test
  void charge_retriedWithTheSameKey_runsOnce_andIsReplayedFromRedis() {
    Payments payments = new Payments();
    assertThat(payments.charge("order-42", 1999)).isEqualTo("receipt-order-42-1999");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(payments.charge("order-42", 1999)).isEqualTo("receipt-order-42-1999");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(payments.charges).hasValue(1);

    // another instance of the service, as on another machine: same Redis, same answer
    Payments elsewhere = new Payments();
    assertThat(elsewhere.charge("order-42", 1999)).isEqualTo("receipt-order-42-1999");
    assertThat(elsewhere.charges).hasValue(0);
  }
}
