package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentCall;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * What happens when the store fails to record an outcome after the method ran: the caller gets its
 * result, and the outcome is recorded in the background once the store answers, so a retry replays it
 * instead of running the method again.
 */
class CompletionFailureTest {

  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  /** A store whose completions fail while {@link #completionsFail} is set; everything else answers. */
  private static class FlakyCompletions extends InMemoryTestStore {
    final AtomicBoolean completionsFail = new AtomicBoolean(true);
    final AtomicInteger completeAttempts = new AtomicInteger();

    @Override
    public synchronized boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
      completeAttempts.incrementAndGet();
      if (completionsFail.get()) {
        throw new IdempotencyStoreException("connection reset", null);
      }
      return super.complete(key, owner, outcome, ttl);
    }
  }

  private Idempotency over(InMemoryTestStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).listener(e -> events.add(e.type())).build());
  }

  private String charge(Idempotency idempotency, Duration lease) {
    return idempotency.call("cards.charge", String.class).key("c-1").lease(lease)
        .run(() -> "charged-" + runs.incrementAndGet());
  }

  @Test
  void completeFails_theResultStillReachesTheCaller_andTheOutcomeIsRecordedOnceTheStoreAnswers() throws Exception {
    FlakyCompletions store = new FlakyCompletions();
    Idempotency idempotency = over(store);
    assertThat(charge(idempotency, Duration.ofSeconds(30))).isEqualTo("charged-1");
    assertThat(events).containsExactly(IdempotencyEvent.Type.STORE_ERROR);

    await(() -> store.completeAttempts.get() >= 3); // tried again in the background while it fails
    assertThatThrownBy(() -> charge(idempotency, Duration.ofSeconds(30)))
        .as("until it is recorded, the key is in progress: a retry neither runs nor takes it over")
        .isInstanceOf(IdempotencyInProgressException.class);

    store.completionsFail.set(false);
    await(() -> events.contains(IdempotencyEvent.Type.EXECUTED));
    assertThat(charge(idempotency, Duration.ofSeconds(30))).as("the retry replays").isEqualTo("charged-1");
    assertThat(runs).hasValue(1);
    assertThat(events).endsWith(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
  }

  @Test
  void completeFails_forLongerThanTheLease_theLeaseIsRenewedMeanwhile_soNoRetryTakesTheKeyOver() throws Exception {
    FlakyCompletions store = new FlakyCompletions();
    Idempotency idempotency = over(store);
    Duration lease = Duration.ofSeconds(1);
    charge(idempotency, lease);
    long renewalsBefore = store.renewals();
    Thread.sleep(3 * lease.toMillis());
    assertThat(store.renewals()).as("renewed while the outcome waits").isGreaterThan(renewalsBefore);
    assertThatThrownBy(() -> charge(idempotency, lease)).isInstanceOf(IdempotencyInProgressException.class);

    store.completionsFail.set(false);
    await(() -> events.contains(IdempotencyEvent.Type.EXECUTED));
    assertThat(charge(idempotency, lease)).isEqualTo("charged-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void completeFails_andTheStoreStaysSilentPastTheLease_anotherInstanceTakesOver_andTheLateOutcomeIsFenced() throws Exception {
    AtomicBoolean silent = new AtomicBoolean(true);
    InMemoryTestStore store = new InMemoryTestStore() {
      private String firstOwner;

      @Override
      public synchronized boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
        if (firstOwner == null) {
          firstOwner = owner;
        }
        if (silent.get() && owner.equals(firstOwner)) {
          throw new IdempotencyStoreException("connection reset", null);
        }
        return super.complete(key, owner, outcome, ttl);
      }

      @Override
      public synchronized boolean renew(String key, String owner, Duration lease) {
        if (silent.get()) {
          throw new IdempotencyStoreException("connection reset", null);
        }
        return super.renew(key, owner, lease);
      }
    };
    Idempotency idempotency = over(store);
    Idempotency otherInstance = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    Duration lease = Duration.ofSeconds(1);
    assertThat(charge(idempotency, lease)).isEqualTo("charged-1");
    Thread.sleep(lease.toMillis() + 500); // nothing renewed the lease: it ran out
    assertThatThrownBy(() -> charge(idempotency, lease))
        .as("where the outcome waits to be recorded, the key is in progress whatever its lease")
        .isInstanceOf(IdempotencyInProgressException.class);
    assertThat(charge(otherInstance, lease)).as("another instance's retry took the key over and ran")
        .isEqualTo("charged-2");

    silent.set(false);
    await(() -> events.contains(IdempotencyEvent.Type.LEASE_LOST));
    assertThat(charge(idempotency, lease)).as("the late outcome did not overwrite the new owner's")
        .isEqualTo("charged-2");
    assertThat(events).doesNotContain(IdempotencyEvent.Type.RUN_TIME_EXCEEDED);
  }

  @Test
  void completeFails_pastTheCallsMaximumRunTime_isGivenUp() throws Exception {
    FlakyCompletions store = new FlakyCompletions();
    Idempotency idempotency = over(store);
    assertThat(idempotency.call("cards.charge", String.class).key("c-1").maxRunTime(Duration.ofMillis(300))
        .run(() -> "charged")).isEqualTo("charged");
    await(() -> events.contains(IdempotencyEvent.Type.RUN_TIME_EXCEEDED));
    int attempts = store.completeAttempts.get();
    Thread.sleep(700);
    assertThat(store.completeAttempts.get()).as("no attempt after giving up").isEqualTo(attempts);
    assertThat(events).doesNotContain(IdempotencyEvent.Type.EXECUTED);
  }

  @Test
  void finalFailureTheStoreFailsToRecord_isRecordedOnceTheStoreAnswers_andReplayed() throws Exception {
    FlakyCompletions store = new FlakyCompletions();
    Idempotency idempotency = over(store);
    IdempotentCall<String> decline = idempotency.call("cards.charge", String.class).key("c-2")
        .finalExceptions(IllegalStateException.class);
    assertThatThrownBy(() -> decline.run(() -> {
      runs.incrementAndGet();
      throw new IllegalStateException("declined");
    })).isInstanceOf(IllegalStateException.class).hasMessage("declined");
    store.completionsFail.set(false);
    await(() -> events.contains(IdempotencyEvent.Type.FAILURE_STORED));
    assertThatThrownBy(() -> decline.run(() -> "ran again")).isInstanceOf(IllegalStateException.class)
        .hasMessage("declined");
    assertThat(runs).hasValue(1);
  }

  @Test
  void completeFails_insideTheCallersTransaction_isThrownSoItRollsBack_andNotTriedAgain() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    InMemoryTestStore store = new InMemoryTestStore() {
      @Override
      public synchronized boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
        attempts.incrementAndGet();
        throw new IdempotencyRollbackRequiredException("claim lost", null);
      }
    };
    Idempotency idempotency = over(store);
    assertThatThrownBy(() -> idempotency.call("c", String.class).key("k").run(() -> "ran"))
        .isInstanceOf(IdempotencyRollbackRequiredException.class).hasMessage("claim lost");
    Thread.sleep(300);
    assertThat(attempts).as("an outcome of a transaction that rolls back is never recorded later").hasValue(1);
    assertThat(events).containsExactly(IdempotencyEvent.Type.STORE_ERROR);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waited 10 s").isNegative();
      Thread.sleep(10);
    }
  }
}
