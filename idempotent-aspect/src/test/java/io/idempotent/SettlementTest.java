package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How a consumer settles a delivery, judged on what real calls of the engine end with. */
class SettlementTest {

  static final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Declined(String message) {
      super(message);
    }
  }

  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
      .store(new InMemoryTestStore(System::nanoTime, true))
      .build());
  private final AtomicInteger runs = new AtomicInteger();

  private Settlement deliver(String messageId, String payload, Runnable body) {
    try {
      idempotency.call("orders.consume", String.class).key(messageId).payload(payload)
          .finalExceptions(Declined.class)
          .run(() -> {
            runs.incrementAndGet();
            body.run();
            return "done";
          });
      return Settlement.of(null, Declined.class);
    } catch (RuntimeException e) {
      return Settlement.of(e, Declined.class);
    }
  }

  @Test
  void aReturnedOrReplayedCall_isAcked() {
    assertThat(deliver("m-1", "a", () -> {})).isEqualTo(Settlement.ACK);
    assertThat(deliver("m-1", "a", () -> {})).isEqualTo(Settlement.ACK);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aFinalException_isRejected_whenRecorded_andWhenReplayed_soItIsNeverRequeuedForever() {
    assertThat(deliver("m-2", "a", () -> {
      throw new Declined("card declined");
    })).isEqualTo(Settlement.REJECT);
    assertThat(deliver("m-2", "a", () -> {})).isEqualTo(Settlement.REJECT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void anExceptionThatIsNotFinal_isRequeued_andTheRedeliveryRunsAgain() {
    assertThat(deliver("m-3", "a", () -> {
      throw new IllegalStateException("database down");
    })).isEqualTo(Settlement.REQUEUE);
    assertThat(deliver("m-3", "a", () -> {})).isEqualTo(Settlement.ACK);
    assertThat(runs).hasValue(2);
  }

  @Test
  void aKeyReusedWithAnotherPayload_isRejected() {
    deliver("m-4", "a", () -> {});
    assertThat(deliver("m-4", "b", () -> {})).isEqualTo(Settlement.REJECT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aDuplicateWhileTheFirstRuns_isRequeued() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Thread first = new Thread(() -> deliver("m-5", "a", () -> {
      running.countDown();
      try {
        finish.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    first.start();
    running.await();
    try {
      assertThat(deliver("m-5", "a", () -> {})).isEqualTo(Settlement.REQUEUE);
    } finally {
      finish.countDown();
      first.join();
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void aMissingKey_isRejected_andTheStoresFailure_isRequeued_andWrappersAreJudgedByTheirCause() {
    assertThat(deliver(" ", "a", () -> {})).isEqualTo(Settlement.REJECT);
    assertThat(Settlement.of(new IdempotencyStoreException("down"))).isEqualTo(Settlement.REQUEUE);
    assertThat(Settlement.of(new CompletionException(new Declined("no")), Declined.class))
        .isEqualTo(Settlement.REJECT);
    assertThat(runs).hasValue(0);
  }
}
