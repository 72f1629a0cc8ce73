package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * A Redis that stops answering for longer than a lease ({@code CLIENT PAUSE}, {@code DEBUG SLEEP}, as a
 * fork, a slow disk or a paused VM would), then wakes and runs what was sent to it meanwhile. What a lease
 * can promise then, case by case; each on a Redis of its own.
 */
class ServerStallTest {

  private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private static RedisIdempotencyStore store(PrivateRedis server, Duration timeout) {
    return RedisIdempotencyStore.builder().host("127.0.0.1").port(server.port()).timeout(timeout).build();
  }

  /** Puts the server to sleep for {@code seconds} on a connection of its own; returns when it is asleep. */
  private static CompletableFuture<Void> sleep(PrivateRedis server, double seconds) throws InterruptedException {
    CountDownLatch sent = new CountDownLatch(1);
    CompletableFuture<Void> awake = CompletableFuture.runAsync(() -> {
      try (Jedis admin = new Jedis(new HostAndPort("127.0.0.1", server.port()),
          DefaultJedisClientConfig.builder().timeoutMillis(30_000).build())) {
        admin.ping();
        sent.countDown();
        admin.sendCommand(DEBUG, "SLEEP", Double.toString(seconds));
      }
    });
    assertThat(sent.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(100); // the DEBUG SLEEP is on its way and the server's event loop stops in it
    return awake;
  }

  @Test
  void claimAnsweredAfterItsLease_isGivenBack_andTheMethodDoesNotRun() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch();
        RedisIdempotencyStore store = store(server, Duration.ofSeconds(5));
        Jedis admin = server.admin()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      store.ping(); // a pooled connection is open (and the settings checked) before the pause
      AtomicInteger runs = new AtomicInteger();
      admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "2500", "ALL");
      long start = System.nanoTime();
      assertThatThrownBy(() -> idempotency.call("paused", String.class).key("k").lease(Duration.ofSeconds(1))
          .run(() -> "r" + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyStoreException.class)
          .rootCause().hasMessageContaining("not within its lease");
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.printf("claim with a 1 s lease answered after %d ms of CLIENT PAUSE: runs %d%n", waitedMs,
          runs.get());
      assertThat(runs).as("the method never ran on a lease that may have ended").hasValue(0);
      assertThat(store.find(StoredKeys.compose("paused", null, "k", store.keyRules())))
          .as("the late claim was given back").isEmpty();
      assertThat(idempotency.call("paused", String.class).key("k").run(() -> "r" + runs.incrementAndGet()))
          .as("a retry runs at once").isEqualTo("r1");
    }
  }

  /**
   * What no lease can promise: a server that sleeps past a running call's lease counts it as ended, and a
   * claim that lands when it wakes takes the key over. The running call's completion is then refused
   * (LEASE_LOST), its outcome is lost, and the call runs again once the landed claim's own lease has run out
   * (its caller gave up on it, so nobody completes it). The README's durability table names this window.
   */
  @Test
  void stallLongerThanARunningCallsLease_letsALandingClaimTakeOver_andTheCallRunsAgain() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch("--enable-debug-command", "yes");
        RedisIdempotencyStore first = store(server, Duration.ofSeconds(5));
        RedisIdempotencyStore second = store(server, Duration.ofMillis(300))) {
      List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
      Idempotency one = Idempotency.create(IdempotencyConfig.builder().store(first).leaseRenewal(false)
          .listener(e -> events.add(e.type())).build());
      Idempotency two = Idempotency.create(IdempotencyConfig.builder().store(second).build());
      second.ping();
      Duration lease = Duration.ofSeconds(1);
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      CompletableFuture<String> call = CompletableFuture.supplyAsync(() ->
          one.call("window", String.class).key("k").lease(lease).run(() -> {
            running.countDown();
            LostRecordTest.hold(finish);
            return "r" + runs.incrementAndGet();
          }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> awake = sleep(server, 2.0);
      assertThatThrownBy(() -> two.call("window", String.class).key("k").lease(lease)
          .run(() -> "r" + runs.incrementAndGet()))
          .as("the duplicate times out while the server sleeps").isInstanceOf(IdempotencyStoreException.class);
      awake.get(10, TimeUnit.SECONDS);
      finish.countDown();
      assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("r1");
      long woke = System.nanoTime();
      int refused = 0;
      CallResult<String> retry = null;
      while (retry == null && System.nanoTime() - woke < TimeUnit.SECONDS.toNanos(10)) {
        try {
          retry = two.call("window", String.class).key("k").lease(lease).execute(() -> "r" + runs.incrementAndGet());
        } catch (IdempotencyInProgressException e) {
          refused++;
          Thread.sleep(50);
        }
      }
      long refusedForMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - woke);
      System.out.printf("stall of 2 s past a 1 s lease: executions of one key %d, first owner's completion refused"
          + " %b, retries refused %d over %d ms%n", runs.get(), events.contains(IdempotencyEvent.Type.LEASE_LOST),
          refused, refusedForMs);
      assertThat(events).as("the first owner's completion was refused").contains(IdempotencyEvent.Type.LEASE_LOST);
      assertThat(retry).isNotNull();
      assertThat(retry.replayed()).isFalse();
      assertThat(runs).as("the call ran a second time").hasValue(2);
    }
  }
}
