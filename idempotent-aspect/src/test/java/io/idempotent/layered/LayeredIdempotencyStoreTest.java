package io.idempotent.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.ManualTimeSource;
import io.idempotent.OnInProgress;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LayeredIdempotencyStoreTest {

  private final ManualTimeSource ticker = new ManualTimeSource();
  private final InMemoryTestStore near = new InMemoryTestStore(ticker, false);
  private final CountingStore far = new CountingStore(ticker);
  private final LayeredIdempotencyStore layered = new LayeredIdempotencyStore(near, far, ticker);
  private final Idempotency idempotency =
      Idempotency.create(IdempotencyConfig.builder().store(layered).time(ticker).build());
  private final AtomicInteger runs = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void stop() {
    threads.forEach(Thread::interrupt);
  }

  private CallResult<String> call(String key) {
    return idempotency.call("orders", String.class).key(key).payload(key).ttl(Duration.ofMinutes(10))
        .execute(() -> "result-" + key + "-" + runs.incrementAndGet());
  }

  @Test
  void replay_nearHit_costsNoFarRoundTrip() {
    call("k");
    int before = far.roundTrips.get();
    for (int i = 0; i < 100; i++) {
      CallResult<String> r = call("k");
      assertThat(r.replayed()).isTrue();
      assertThat(r.value()).isEqualTo("result-k-1");
    }
    assertThat(far.roundTrips.get()).isEqualTo(before);
    assertThat(runs).hasValue(1);
  }

  @Test
  void replay_completedByAnotherInstance_isAskedFarOnce_thenServedNear() {
    // another instance completed the key: only the far store knows it
    far.claim(storedKey("k"), fingerprint("k"), "other-instance", Duration.ofMinutes(1));
    far.complete(storedKey("k"), "other-instance", StoredOutcome.valueJson("\"from elsewhere\""), Duration.ofMinutes(10));
    int before = far.roundTrips.get();
    assertThat(call("k").value()).isEqualTo("from elsewhere");
    assertThat(far.roundTrips.get()).isEqualTo(before + 1);
    assertThat(call("k").value()).isEqualTo("from elsewhere");
    assertThat(far.roundTrips.get()).as("second replay served near").isEqualTo(before + 1);
    assertThat(runs).hasValue(0);
  }

  @Test
  void nearCopy_expiresNoLaterThanTheFarRecord() {
    call("k");
    ticker.advance(Duration.ofMinutes(10).plusNanos(1));
    assertThat(near.find(storedKey("k"))).isEmpty();
    assertThat(far.find(storedKey("k"))).isEmpty();
    assertThat(call("k").replayed()).isFalse();
    assertThat(runs).hasValue(2);
  }

  @Test
  void nearMiss_isNeverFinal() {
    call("k");
    near.purgeExpired(Integer.MAX_VALUE);
    ticker.advance(Duration.ofMinutes(1));
    // evict the near copy as a bounded cache might
    InMemoryTestStore emptyNear = new InMemoryTestStore(ticker, false);
    LayeredIdempotencyStore coldCache = new LayeredIdempotencyStore(emptyNear, far, ticker);
    CallResult<String> r = Idempotency.create(IdempotencyConfig.builder().store(coldCache).build())
        .call("orders", String.class).key("k").payload("k").execute(() -> "must not run");
    assertThat(r.replayed()).isTrue();
    assertThat(r.value()).isEqualTo("result-k-1");
  }

  @Test
  void onlyCommittedOutcomes_enterTheNearCache() {
    far.deferCommits = true;
    call("rolled-back");
    assertThat(near.find(storedKey("rolled-back"))).as("not before commit").isEmpty();
    far.rollback();
    assertThat(near.find(storedKey("rolled-back"))).as("never after a rollback").isEmpty();
    call("committed");
    far.commit();
    assertThat(near.find(storedKey("committed")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void farStoreDown_failsClosed_butAWarmKeyStillReplays() {
    call("warm");
    far.records.failing(true);
    assertThatThrownBy(() -> call("cold")).isInstanceOf(IdempotencyStoreException.class);
    assertThat(call("warm").value()).isEqualTo("result-warm-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void concurrentDuplicatesInOneJvm_waitOnOneExecution_withoutPollingTheFarStore() throws Exception {
    CountingStore countedNear = new CountingStore(ticker);
    Idempotency burst = Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(countedNear, far, ticker)).time(ticker)
        .defaultLease(Duration.ofSeconds(30)).defaultWaitTimeout(Duration.ofSeconds(20)).build());
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger executions = new AtomicInteger();
    List<FutureTask<String>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      FutureTask<String> call = new FutureTask<>(() -> burst.call("burst", String.class).key("b")
          .onInProgress(OnInProgress.WAIT).run(() -> {
            executions.incrementAndGet();
            started.countDown();
            release.await();
            return "once";
          }));
      Thread t = new Thread(call, "burst-" + i);
      threads.add(t);
      calls.add(call);
      t.start();
      if (i == 0) {
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      }
    }
    for (Thread duplicate : threads.subList(1, threads.size())) {
      assertThat(ticker.awaitParked(duplicate)).as(duplicate.getName() + " waits").isTrue();
    }
    int roundTripsWhileWaiting = far.roundTrips.get() + countedNear.roundTrips.get();
    // 9 s: well within the wait timeout and the first call's lease (no renewal is due before 10 s);
    // a waiter that polled would have looked at the stores dozens of times
    ticker.advance(Duration.ofSeconds(9));
    for (Thread duplicate : threads.subList(1, threads.size())) {
      assertThat(ticker.awaitParked(duplicate)).isTrue();
    }
    assertThat(far.roundTrips.get() + countedNear.roundTrips.get()).as("no polling while waiting")
        .isEqualTo(roundTripsWhileWaiting);
    release.countDown();
    for (FutureTask<String> f : calls) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo("once");
    }
    assertThat(executions).hasValue(1);
  }

  private static String storedKey(String key) {
    return io.idempotent.internal.StoredKeys.compose("orders", null, key, StoreKeyRules.any());
  }

  private static String fingerprint(String key) {
    return io.idempotent.internal.Fingerprints.of(new Object[] {key});
  }
}
