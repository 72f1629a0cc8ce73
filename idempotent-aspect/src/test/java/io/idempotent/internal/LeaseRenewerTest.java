package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyConfig;
import io.idempotent.OnInProgress;
import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseRenewerTest {

  private final InMemoryTestStore store = new InMemoryTestStore();
  private final IdempotencyEngine engine = new IdempotencyEngine(IdempotencyConfig.builder().store(store).build());
  private final CallPlan plan = new CallPlan("n", "n", "", null, null, null, OnInProgress.THROW,
      new Class[0], false, false, String.class);

  private static void awaitEnd(Thread t) throws InterruptedException {
    t.join(10_000);
  }

  @Test
  void thread_endsWhenIdle_andARegistrationStartsAnotherThatRenews() throws Exception {
    LeaseRenewer renewer = new LeaseRenewer(engine, Duration.ofMillis(50).toNanos());
    store.claim("k1", "", "o1", Duration.ofMillis(300));
    renewer.register(plan, store, "k1", "o1", Duration.ofMillis(300)).cancel();
    Thread first = renewer.thread();
    assertThat(first).isNotNull();
    awaitEnd(first);
    assertThat(first.isAlive()).isFalse();
    assertThat(renewer.thread()).isNull();

    store.claim("k2", "", "o2", Duration.ofMillis(300));
    LeaseRenewer.Renewal r = renewer.register(plan, store, "k2", "o2", Duration.ofMillis(300));
    Thread second = renewer.thread();
    assertThat(second).isNotNull().isNotSameAs(first);
    Thread.sleep(900); // three leases: only renewal keeps the claim
    assertThat(store.find("k2")).isPresent();
    r.cancel();
  }
}
