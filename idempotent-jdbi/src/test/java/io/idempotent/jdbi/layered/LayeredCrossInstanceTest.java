package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.OnInProgress;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Two application instances, each with its own near cache, HikariCP pool, table store and engine, share
 * one PostgreSQL table and send the same keys from many threads at once: the table decides, each key runs
 * once, and every call gets that run's result (waiting in memory on its own instance's run, or on the
 * table for the other's).
 */
class LayeredCrossInstanceTest {

  private static final int INSTANCES = 2;
  private static final int THREADS_PER_INSTANCE = 8;
  private static final int KEYS = 300;
  private static final int COPIES_PER_INSTANCE = 3;

  @Test
  void twoLayeredInstances_onOnePostgresTable_executeEachKeyOnce() throws Exception {
    TestDatabase db = TestDatabase.POSTGRES;
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    String ns = "layered-cross-" + UUID.randomUUID();
    Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger replayed = new AtomicInteger();
    List<HikariDataSource> pools = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        HikariDataSource pool = db.newPool(THREADS_PER_INSTANCE + 2, "layered-instance-" + i);
        pools.add(pool);
        LayeredIdempotencyStore store = new LayeredIdempotencyStore(
            CaffeineIdempotencyStore.builder().build(), JdbiIdempotencyStore.builder(Jdbi.create(pool)).build());
        Idempotency instance = Idempotency.create(IdempotencyConfig.builder().store(store)
            .defaultWaitTimeout(Duration.ofMinutes(1)).build());
        List<Integer> work = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
          for (int c = 0; c < COPIES_PER_INSTANCE; c++) {
            work.add(k);
          }
        }
        Collections.shuffle(work, new Random(i));
        AtomicInteger next = new AtomicInteger();
        for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
          futures.add(threads.submit(() -> {
            start.await();
            for (int w = next.getAndIncrement(); w < work.size(); w = next.getAndIncrement()) {
              int k = work.get(w);
              var r = instance.call(ns, String.class).key("k" + k).payload(k).onInProgress(OnInProgress.WAIT)
                  .execute(() -> {
                    executions.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                    return "result-" + k;
                  });
              if (!("result-" + k).equals(r.value())) {
                wrong.incrementAndGet();
              }
              if (r.replayed()) {
                replayed.incrementAndGet();
              }
              answered.incrementAndGet();
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
      pools.forEach(HikariDataSource::close);
    }
    int calls = INSTANCES * KEYS * COPIES_PER_INSTANCE;
    assertThat(wrong).as("calls that got another key's result").hasValue(0);
    assertThat(answered).hasValue(calls);
    assertThat(replayed).hasValue(calls - KEYS);
    assertThat(executions).hasSize(KEYS);
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).as("executions per key").isEqualTo(1));
  }
}
