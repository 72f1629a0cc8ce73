package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * What a record that Redis lost (eviction, restart or failover without persistence; here a DEL of that
 * one key) means for callers, on the shared server: each test states one line of the README's table.
 * Two application instances are two stores with pools of their own and two engines.
 */
class LostRecordTest {

  private static final String NS = "payments.charge";

  private final String prefix = TestRedis.uniquePrefix("lost");
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private RedisIdempotencyStore storeA;
  private RedisIdempotencyStore storeB;
  private Idempotency instanceA;
  private Idempotency instanceB;
  private RedisClient redis;

  @BeforeEach
  void open() {
    TestRedis.requireReachable();
    storeA = TestRedis.store(prefix);
    storeB = TestRedis.store(prefix);
    instanceA = Idempotency.create(IdempotencyConfig.builder().store(storeA).listener(events::add).build());
    instanceB = Idempotency.create(IdempotencyConfig.builder().store(storeB).build());
    redis = TestRedis.client();
  }

  @AfterEach
  void close() {
    if (redis == null) {
      return;
    }
    storeA.close();
    storeB.close();
    redis.close();
    TestRedis.deleteAll(prefix);
  }

  /** Redis loses the record of {@code key}, as eviction or a restart without persistence would. */
  private void lose(String key) {
    byte[] redisKey = storeA.redisKey(StoredKeys.compose(NS, null, key, storeA.keyRules()));
    assertThat(redis.del(redisKey)).as("the record existed").isEqualTo(1);
  }

  /** Blocks the running method until the test lets it finish. */
  static void hold(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never let the method finish");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private List<IdempotencyEvent.Type> eventTypes() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }

  @Test
  void lostInProgressRecord_letsADuplicateRunWhileTheFirstRuns_butTheFirstCannotOverwriteIt() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> instanceA.call(NS, String.class)
        .key("order-1").run(() -> {
          runs.incrementAndGet();
          firstRunning.countDown();
          hold(finishFirst);
          return "first";
        }));
    assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
    lose("order-1");

    // not fail-closed: the duplicate finds no record and runs while the first is still running
    CallResult<String> duplicate = instanceB.call(NS, String.class).key("order-1").execute(() -> {
      runs.incrementAndGet();
      return "duplicate";
    });
    assertThat(duplicate.outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(runs).hasValue(2);

    // fenced: the first owner's completion is refused and reported; the duplicate's outcome stays
    finishFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(eventTypes()).contains(IdempotencyEvent.Type.LEASE_LOST).doesNotContain(IdempotencyEvent.Type.EXECUTED);
    CallResult<String> retry = instanceA.call(NS, String.class).key("order-1").execute(() -> "never");
    assertThat(retry.replayed()).isTrue();
    assertThat(retry.value()).isEqualTo("duplicate");
  }

  @Test
  void lostInProgressRecord_duplicateStillRunning_whenTheFirstCompletes_keepsTheDuplicatesClaim() throws Exception {
    CountDownLatch duplicateRunning = new CountDownLatch(1);
    CountDownLatch finishDuplicate = new CountDownLatch(1);
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> instanceA.call(NS, String.class)
        .key("order-2").run(() -> {
          firstRunning.countDown();
          hold(finishFirst);
          return "first";
        }));
    assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
    lose("order-2");
    CompletableFuture<String> duplicate = CompletableFuture.supplyAsync(() -> instanceB.call(NS, String.class)
        .key("order-2").run(() -> {
          duplicateRunning.countDown();
          hold(finishDuplicate);
          return "duplicate";
        }));
    assertThat(duplicateRunning.await(10, TimeUnit.SECONDS)).isTrue();

    finishFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(eventTypes()).contains(IdempotencyEvent.Type.LEASE_LOST);
    String storedKey = StoredKeys.compose(NS, null, "order-2", storeA.keyRules());
    assertThat(storeA.find(storedKey).orElseThrow().state()).as("the duplicate still holds the key")
        .isEqualTo(RecordState.IN_PROGRESS);

    finishDuplicate.countDown();
    assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo("duplicate");
    assertThat(instanceA.call(NS, String.class).key("order-2").run(() -> "never")).isEqualTo("duplicate");
  }

  @Test
  void lostInProgressRecord_withoutDuplicate_leavesTheOutcomeUnrecorded_soARetryRunsAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> instanceA.call(NS, String.class)
        .key("order-3").run(() -> {
          runs.incrementAndGet();
          running.countDown();
          hold(finish);
          return "first";
        }));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    lose("order-3");
    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).as("the caller still gets its result").isEqualTo("first");
    assertThat(eventTypes()).contains(IdempotencyEvent.Type.LEASE_LOST);

    CallResult<String> retry = instanceB.call(NS, String.class).key("order-3").execute(() -> {
      runs.incrementAndGet();
      return "again";
    });
    assertThat(retry.outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(runs).hasValue(2);
  }

  @Test
  void lostInProgressRecord_isNoticedByTheLeaseRenewal() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> instanceA.call(NS, String.class)
        .key("order-4").lease(Duration.ofSeconds(1)).run(() -> {
          running.countDown();
          hold(finish);
          return "first";
        }));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    lose("order-4");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!eventTypes().contains(IdempotencyEvent.Type.LEASE_LOST) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(eventTypes()).as("the renewer reports the loss while the method still runs")
        .contains(IdempotencyEvent.Type.LEASE_LOST);
    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
  }

  @Test
  void lostCompletedRecord_letsARetryRunAgain() {
    AtomicInteger runs = new AtomicInteger();
    assertThat(instanceA.call(NS, String.class).key("order-5").run(() -> "r" + runs.incrementAndGet())).isEqualTo("r1");
    assertThat(instanceB.call(NS, String.class).key("order-5").run(() -> "r" + runs.incrementAndGet())).isEqualTo("r1");
    lose("order-5");
    CallResult<String> retry = instanceB.call(NS, String.class).key("order-5").execute(() -> "r" + runs.incrementAndGet());
    assertThat(retry.outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(retry.value()).isEqualTo("r2");
  }

  @Test
  void lostCompletedRecord_losesTheKeyReuseCheck() {
    instanceA.call(NS, String.class).key("order-6").payload(100).run(() -> "paid 100");
    assertThatThrownBy(() -> instanceB.call(NS, String.class).key("order-6").payload(999).run(() -> "paid 999"))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    lose("order-6");
    assertThat(instanceB.call(NS, String.class).key("order-6").payload(999).run(() -> "paid 999"))
        .isEqualTo("paid 999");
  }

  @Test
  void unreachableRedis_failsClosed_theMethodDoesNotRun() throws Exception {
    int deadPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    try (RedisIdempotencyStore dead = RedisIdempotencyStore.builder().port(deadPort)
        .timeout(Duration.ofMillis(500)).build()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(dead).build());
      AtomicInteger runs = new AtomicInteger();
      assertThatThrownBy(() -> idempotency.call(NS, String.class).key("order-7").run(() -> "r" + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyStoreException.class)
          .hasMessageContaining("did not run");
      assertThat(runs).hasValue(0);
    }
  }
}
