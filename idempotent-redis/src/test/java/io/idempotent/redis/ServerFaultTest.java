package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Restarts, memory limits and eviction, on a Redis of each test's own (none of this may be done to a
 * shared server): the durability table of the README, line by line.
 */
class ServerFaultTest {

  private static final Duration LONG = Duration.ofMinutes(10);

  private static Idempotency engine(RedisIdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  /**
   * Writes filler values until Redis refuses a write for lack of memory (noeviction), then lowers the
   * limit below what is used, so that Redis stays full: freeing the refused command's own buffer would
   * otherwise drop it just under the limit again.
   */
  private static void fillUntilOutOfMemory(Jedis redis) {
    String value = "x".repeat(64 * 1024);
    for (int i = 0; i < 100_000; i++) {
      try {
        redis.set("filler:" + i, value);
      } catch (JedisDataException e) {
        assertThat(e.getMessage()).startsWith("OOM");
        long used = Long.parseLong(redis.info("memory").lines().filter(l -> l.startsWith("used_memory:"))
            .findFirst().orElseThrow().substring("used_memory:".length()).trim());
        redis.configSet("maxmemory", Long.toString(used / 2));
        return;
      }
    }
    throw new AssertionError("Redis never ran out of memory");
  }

  @Test
  void restartWithoutPersistence_failsClosedWhileDown_andForgetsEveryRecord() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); RedisIdempotencyStore store = server.store()) {
      Idempotency idempotency = engine(store);
      AtomicInteger runs = new AtomicInteger();
      assertThat(idempotency.call("restart", String.class).key("k").run(() -> "r" + runs.incrementAndGet()))
          .isEqualTo("r1");

      server.stop();
      assertThatThrownBy(() -> idempotency.call("restart", String.class).key("k").run(() -> "r" + runs.incrementAndGet()))
          .as("while Redis is down nothing runs")
          .isInstanceOf(IdempotencyStoreException.class);
      assertThat(runs).hasValue(1);

      server.start();
      // a pooled connection to the old process fails once, closed like any store error; then the empty
      // server answers and the completed record is gone: the retry runs a second time
      CallResult<String> after = null;
      for (int attempt = 0; attempt < 3 && after == null; attempt++) {
        try {
          after = idempotency.call("restart", String.class).key("k").execute(() -> "r" + runs.incrementAndGet());
        } catch (IdempotencyStoreException stale) {
          assertThat(runs).as("a failed attempt does not run the method").hasValue(1);
        }
      }
      assertThat(after).isNotNull();
      assertThat(after.outcome()).isEqualTo(CallOutcome.EXECUTED);
      assertThat(after.value()).isEqualTo("r2");
    }
  }

  @Test
  void outOfMemoryWithNoeviction_refusesNewClaims_butReplaysAndFinishesRunningCalls() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch("--maxmemory", "8mb", "--maxmemory-policy", "noeviction");
        RedisIdempotencyStore store = server.store();
        Jedis redis = server.admin()) {
      Idempotency idempotency = engine(store);
      AtomicInteger runs = new AtomicInteger();
      idempotency.call("oom", String.class).key("done").run(() -> "done-" + runs.incrementAndGet());
      String leased = StoredKeys.compose("oom", null, "leased", store.keyRules());
      assertThat(store.claim(leased, "fp", "owner-1", LONG).claimed()).isTrue();
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() ->
          idempotency.call("oom", String.class).key("running").run(() -> {
            running.countDown();
            LostRecordTest.hold(finish);
            return "running-" + runs.incrementAndGet();
          }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      fillUntilOutOfMemory(redis);

      // fails closed: a new key cannot be claimed, so its method does not run
      assertThatThrownBy(() -> idempotency.call("oom", String.class).key("new").run(() -> "new-" + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyStoreException.class)
          .rootCause().hasMessageStartingWith("OOM command not allowed");
      // a completed record is still replayed: the claim only reads it
      assertThat(idempotency.call("oom", String.class).key("done").execute(() -> "again").replayed()).isTrue();
      // a running call keeps its lease and records its outcome: those scripts start by a write that frees
      assertThat(store.renew(leased, "owner-1", LONG)).isTrue();
      finish.countDown();
      assertThat(inFlight.get(10, TimeUnit.SECONDS)).startsWith("running-");
      String runningKey = StoredKeys.compose("oom", null, "running", store.keyRules());
      assertThat(store.find(runningKey).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
      assertThat(store.release(leased, "owner-1")).isTrue();
      assertThat(runs).hasValue(2);
    }
  }

  @Test
  void evictionWithAllkeysLru_dropsCompletedAndInProgressRecords_soCallsRunAgain() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch("--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru");
        RedisIdempotencyStore store = server.store()) {
      Idempotency idempotency = engine(store);
      String running = StoredKeys.compose("evict", null, "running", store.keyRules());
      assertThat(store.claim(running, "fp", "owner-1", LONG).claimed()).isTrue();
      String payload = "y".repeat(4_000);
      AtomicInteger runs = new AtomicInteger();
      int keys = 5_000; // about 25 MB of outcomes into 4 MB
      for (int i = 0; i < keys; i++) {
        int n = i;
        idempotency.call("evict", String.class).key("k" + i).run(() -> {
          runs.incrementAndGet();
          return payload + n;
        });
      }
      assertThat(runs).hasValue(keys);
      int ranAgain = 0;
      for (int i = 0; i < 100; i++) {
        int n = i;
        CallResult<String> r = idempotency.call("evict", String.class).key("k" + i).execute(() -> payload + n);
        if (!r.replayed()) {
          ranAgain++;
        }
      }
      assertThat(ranAgain).as("early keys were evicted and ran a second time").isPositive();
      ClaimResult duplicate = store.claim(running, "fp", "owner-2", LONG);
      assertThat(duplicate.status()).as("the in-progress claim was evicted too: a duplicate gets the key")
          .isEqualTo(ClaimResult.Status.ACQUIRED);
      assertThat(store.complete(running, "owner-1", io.idempotent.spi.StoredOutcome.nullValue(), LONG))
          .as("the first owner is fenced off").isFalse();
    }
  }
}
