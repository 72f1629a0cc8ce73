package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * Pooled connections the server closed under the store (a {@code CLIENT KILL}, its idle {@code timeout},
 * a restart): the store sends the script again on a fresh connection, so no call fails and no outcome is
 * lost while Redis is up. Each on a Redis of its own.
 */
class DroppedConnectionTest {

  /** Closes every normal client's connection but the caller's, as an operator or a proxy might. */
  private static void killClients(Jedis admin) {
    admin.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal", "SKIPME", "yes");
  }

  /** Opens {@code n} pooled connections at once: {@code n} calls that all wait until each has claimed. */
  private static void warm(Idempotency idempotency, int n) throws Exception {
    CountDownLatch claimed = new CountDownLatch(n);
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key = "warm-" + i;
      calls.add(CompletableFuture.supplyAsync(() -> idempotency.call("warm", String.class).key(key).run(() -> {
        claimed.countDown();
        LostRecordTest.hold(claimed);
        return key;
      })));
    }
    for (CompletableFuture<String> call : calls) {
      call.get(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void connectionKilledWhileTheMethodRuns_theCompletionIsResentOnAFreshConnection_andTheRetryReplays()
      throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); RedisIdempotencyStore store = server.store();
        Jedis admin = server.admin()) {
      List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
      Idempotency idempotency = Idempotency.create(
          IdempotencyConfig.builder().store(store).listener(e -> events.add(e.type())).build());
      AtomicInteger runs = new AtomicInteger();
      String first = idempotency.call("kill", String.class).key("k").run(() -> {
        killClients(admin); // the connection the claim went out on is closed before the completion
        return "r" + runs.incrementAndGet();
      });
      CallResult<String> retry = idempotency.call("kill", String.class).key("k")
          .execute(() -> "r" + runs.incrementAndGet());
      assertThat(events).as("no store error was reported").doesNotContain(IdempotencyEvent.Type.STORE_ERROR);
      assertThat(retry.replayed()).as("the outcome was recorded, so the retry replays it").isTrue();
      assertThat(retry.value()).isEqualTo(first);
      assertThat(runs).hasValue(1);
    }
  }

  @Test
  void warmPoolAfterClientKill_noCallFails() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); RedisIdempotencyStore store = server.store();
        Jedis admin = server.admin()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      warm(idempotency, RedisIdempotencyStore.DEFAULT_POOL_SIZE);
      killClients(admin);
      int failed = callsInARow(idempotency, "after-kill", RedisIdempotencyStore.DEFAULT_POOL_SIZE + 1);
      System.out.printf("calls that failed after CLIENT KILL with %d pooled connections: %d of %d%n",
          RedisIdempotencyStore.DEFAULT_POOL_SIZE, failed, RedisIdempotencyStore.DEFAULT_POOL_SIZE + 1);
      assertThat(failed).isZero();
    }
  }

  @Test
  void warmPoolPastTheServersIdleTimeout_noCallFails() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch("--timeout", "1"); RedisIdempotencyStore store = server.store()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      warm(idempotency, 4);
      Thread.sleep(2_500); // Redis closes connections idle for more than a second (checked about every 100 ms)
      int failed = callsInARow(idempotency, "after-idle", 5);
      assertThat(failed).isZero();
    }
  }

  @Test
  void warmPoolAcrossARestart_noCallFailsOnceRedisIsBack() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); RedisIdempotencyStore store = server.store()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      warm(idempotency, RedisIdempotencyStore.DEFAULT_POOL_SIZE);
      server.stop();
      server.start();
      assertThat(callsInARow(idempotency, "after-restart", RedisIdempotencyStore.DEFAULT_POOL_SIZE + 1)).isZero();
    }
  }

  /** Makes {@code n} calls one after another on new keys; returns how many failed with a store error. */
  private static int callsInARow(Idempotency idempotency, String name, int n) {
    int failed = 0;
    for (int i = 0; i < n; i++) {
      try {
        idempotency.call(name, String.class).key("k" + i).run(() -> "done");
      } catch (IdempotencyStoreException e) {
        failed++;
      }
    }
    return failed;
  }
}
