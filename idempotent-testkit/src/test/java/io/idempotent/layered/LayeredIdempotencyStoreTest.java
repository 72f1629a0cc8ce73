package io.idempotent.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.OnInProgress;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import io.idempotent.testkit.FakeTicker;
import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LayeredIdempotencyStoreTest {

  private final FakeTicker ticker = new FakeTicker();
  private final InMemoryTestStore near = new InMemoryTestStore(ticker, false);
  private final CountingStore far = new CountingStore(ticker);
  private final CountingStore farReal = new CountingStore(System::nanoTime);
  private final LayeredIdempotencyStore layered = new LayeredIdempotencyStore(near, far, ticker);
  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(layered).build());
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
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
    Idempotency real = Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(new InMemoryTestStore(), farReal))
        .defaultWaitTimeout(Duration.ofSeconds(20)).build());
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger executions = new AtomicInteger();
    List<Future<String>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      calls.add(pool.submit(() -> real.call("burst", String.class).key("b").onInProgress(OnInProgress.WAIT)
          .run(() -> {
            executions.incrementAndGet();
            started.countDown();
            release.await();
            return "once";
          })));
      if (i == 0) {
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      }
    }
    Thread.sleep(300); // the duplicates are now waiting
    int roundTripsWhileWaiting = farReal.roundTrips.get();
    Thread.sleep(300);
    assertThat(farReal.roundTrips.get()).as("no polling while waiting").isEqualTo(roundTripsWhileWaiting);
    release.countDown();
    for (Future<String> f : calls) {
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
