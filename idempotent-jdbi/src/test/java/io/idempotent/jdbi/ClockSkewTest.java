package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two instances whose application clocks are minutes apart agree on when a lease or a result expires,
 * because the store decides with the database's clock only.
 */
class ClockSkewTest {

  private static final Duration LEASE = Duration.ofMillis(1500);

  private record Instance(HikariDataSource pool, Idempotency idempotency, List<IdempotencyEvent.Type> events) {}

  private static Instance instance(TestDatabase db, String name, Duration clockOffset) {
    HikariDataSource pool = db.newPool(4, name);
    List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(pool)).build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(store)
        .clock(Clock.offset(Clock.systemUTC(), clockOffset))
        .leaseRenewal(false) // the first instance must look dead: its lease is not renewed
        .listener(e -> events.add(e.type()))
        .build());
    return new Instance(pool, idempotency, events);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void instancesWithSkewedClocks_agreeOnLeaseExpiry(TestDatabase db) throws Exception {
    db.requireReachable();
    db.storeBuilder().build();
    Instance behind = instance(db, "behind", Duration.ofMinutes(-5));
    Instance ahead = instance(db, "ahead", Duration.ofMinutes(7));
    String key = "skew-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    try {
      CompletableFuture<String> slow = CompletableFuture.supplyAsync(() ->
          behind.idempotency().call("skew", String.class).key(key).lease(LEASE).run(() -> {
            running.countDown();
            awaitQuietly(finish);
            return "behind";
          }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      // seven minutes ahead, yet the lease (1.5 s of database time) is still running
      assertThatThrownBy(() -> ahead.idempotency().call("skew", String.class).key(key).lease(LEASE)
          .onInProgress(OnInProgress.THROW).run(() -> "ahead"))
          .isInstanceOf(IdempotencyInProgressException.class);

      Thread.sleep(LEASE.toMillis() + 200);
      CallResult<String> takeover = ahead.idempotency().call("skew", String.class).key(key).lease(LEASE)
          .ttl(Duration.ofMillis(1500)).execute(() -> "ahead");
      assertThat(takeover.value()).isEqualTo("ahead");
      assertThat(ahead.events()).contains(IdempotencyEvent.Type.LEASE_TAKEN_OVER);

      finish.countDown();
      assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("behind");
      assertThat(behind.events()).as("the stale owner is fenced and told").contains(IdempotencyEvent.Type.LEASE_LOST);

      // five minutes behind, it still sees the result expire after its 1.5 s of database time
      CallResult<String> replay = behind.idempotency().call("skew", String.class).key(key).execute(() -> "again");
      assertThat(replay.replayed()).isTrue();
      assertThat(replay.value()).isEqualTo("ahead");
      Thread.sleep(1700);
      CallResult<String> afterTtl = behind.idempotency().call("skew", String.class).key(key).execute(() -> "again");
      assertThat(afterTtl.replayed()).isFalse();
      assertThat(afterTtl.value()).isEqualTo("again");
    } finally {
      finish.countDown();
      behind.pool().close();
      ahead.pool().close();
    }
  }
}
