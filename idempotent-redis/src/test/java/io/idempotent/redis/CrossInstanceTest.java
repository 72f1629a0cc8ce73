package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.OnInProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several application instances, each with its own connection pool, store and engine, send the same keys
 * at the same time to one Redis: the server alone decides, and every key runs exactly once.
 */
class CrossInstanceTest {

  private static final int INSTANCES = 4;
  private static final int THREADS_PER_INSTANCE = 6;
  private static final int KEYS = 500;
  private static final int COPIES_PER_INSTANCE = 2;

  private final String prefix = TestRedis.uniquePrefix("cross");
  private boolean opened;

  @BeforeEach
  void redisIsThere() {
    TestRedis.requireReachable();
    opened = true;
  }

  @AfterEach
  void clean() {
    if (opened) {
      TestRedis.deleteAll(prefix);
    }
  }

  @Test
  void instancesWithTheirOwnClients_hammeringTheSameKeys_executeEachKeyOnce() throws Exception {
    Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    List<RedisIdempotencyStore> stores = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().host(TestRedis.HOST).port(TestRedis.PORT)
            .database(TestRedis.DATABASE).prefix(prefix).poolSize(THREADS_PER_INSTANCE).build();
        stores.add(store);
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
              String r = instance.call("cross", String.class).key("k" + k).payload(k)
                  .onInProgress(OnInProgress.WAIT)
                  .run(() -> {
                    executions.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                    return "result-" + k;
                  });
              if (!("result-" + k).equals(r)) {
                wrong.incrementAndGet();
              }
              answered.incrementAndGet();
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
      stores.forEach(RedisIdempotencyStore::close);
    }
    assertThat(wrong).as("calls that got another key's result").hasValue(0);
    assertThat(answered).hasValue(INSTANCES * KEYS * COPIES_PER_INSTANCE);
    assertThat(executions).hasSize(KEYS);
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).as("executions per key").isEqualTo(1));
  }
}
