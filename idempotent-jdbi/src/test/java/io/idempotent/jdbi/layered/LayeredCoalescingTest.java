package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.CountingDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Duplicates of a call running in this JVM wait on it in memory: with Caffeine in front of PostgreSQL,
 * 16 threads send the same key, one runs, the others wait — no statement reaches the database, and no
 * lookup is repeated, while they do — and all get its result.
 */
class LayeredCoalescingTest {

  private static final int THREADS = 16;

  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private ExecutorService pool;
  private CountingDataSource counting;
  private CountingNearStore near;
  private Idempotency idempotency;

  @BeforeEach
  void instance() {
    TestDatabase db = TestDatabase.POSTGRES;
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    counting = new CountingDataSource(db.pool());
    JdbiIdempotencyStore far = JdbiIdempotencyStore.builder(Jdbi.create(counting.dataSource))
        .dialect(db.dialect()).build();
    near = new CountingNearStore(CaffeineIdempotencyStore.builder().build());
    idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(near, far))
        .defaultLease(Duration.ofMinutes(5)) // no lease renewal statement during the test
        .defaultWaitTimeout(Duration.ofMinutes(2))
        .build());
    pool = Executors.newFixedThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "duplicate-" + threads.size());
      threads.add(t);
      return t;
    });
  }

  @AfterEach
  void stop() {
    if (pool != null) { // null when @BeforeEach was skipped (no server)
      pool.shutdownNow();
    }
  }

  @Test
  void sixteenThreads_sameKey_wait_oneExecution_allGetItsResult_noStatementsWhileWaiting() throws Exception {
    String key = "burst-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger executions = new AtomicInteger();
    List<Future<String>> calls = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      calls.add(pool.submit(() -> idempotency.call("burst", String.class).key(key)
          .onInProgress(OnInProgress.WAIT)
          .run(() -> {
            executions.incrementAndGet();
            running.countDown();
            finish.await();
            return "the one result";
          })));
      if (i == 0) {
        assertThat(running.await(1, TimeUnit.MINUTES)).as("the first call runs").isTrue();
        counting.reset(); // its claim
      }
    }

    awaitWaiting(threads.subList(1, THREADS));
    int lookupsBefore = near.lookups.get();
    Thread.sleep(500); // a window in which polling would show
    assertThat(near.lookups.get()).as("lookups by 15 waiting duplicates (polling)").isEqualTo(lookupsBefore);
    assertThat(counting.reset()).as("statements from 15 duplicates claiming and waiting").isZero();

    finish.countDown();
    for (Future<String> call : calls) {
      assertThat(call.get(1, TimeUnit.MINUTES)).isEqualTo("the one result");
    }
    assertThat(executions).hasValue(1);
    assertThat(counting.reset()).as("after the wait: the one completion; the 15 replays are served near")
        .isEqualTo(1);
  }

  @Test
  void duplicates_followTheirOnInProgress_throwSkipAndWaitTimeout_inMemory() throws Exception {
    String key = "refused-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first = pool.submit(() -> idempotency.call("burst", String.class).key(key).run(() -> {
      running.countDown();
      finish.await();
      return "first";
    }));
    assertThat(running.await(1, TimeUnit.MINUTES)).isTrue();
    counting.reset();
    try {
      assertThatThrownBy(() -> idempotency.call("burst", String.class).key(key).run(() -> "second"))
          .isInstanceOf(IdempotencyInProgressException.class);
      assertThat(idempotency.call("burst", String.class).key(key).onInProgress(OnInProgress.SKIP)
          .execute(() -> "second").value()).isNull();
      assertThatThrownBy(() -> idempotency.call("burst", String.class).key(key).onInProgress(OnInProgress.WAIT)
          .waitTimeout(Duration.ofMillis(300)).run(() -> "second"))
          .as("a wait that times out").isInstanceOf(IdempotencyInProgressException.class);
      assertThat(counting.reset()).as("statements for the three duplicates").isZero();
    } finally {
      finish.countDown();
    }
    assertThat(first.get(1, TimeUnit.MINUTES)).isEqualTo("first");
  }

  /** Waits until every thread is parked with a timeout, as the engine's wait on a change signal is. */
  private static void awaitWaiting(List<Thread> waiting) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (waiting.size() < THREADS - 1
        || !waiting.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING)) {
      assertThat(System.nanoTime() - deadline).as("the duplicates start waiting").isNegative();
      Thread.sleep(20);
    }
  }
}
