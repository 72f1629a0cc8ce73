package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One engine with two named table stores: the application has exhausted store "a"'s pool, so renewing a
 * lease there waits for a connection. A long call on the healthy store "b" must keep its lease all the
 * same, so that a duplicate from another instance is refused instead of running beside it.
 */
class LeaseRenewalAcrossStoresTest {

  private static final String NAME = "renewal.lanes";
  private static final Duration LEASE = Duration.ofSeconds(1);

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  @SuppressWarnings("try") // the connection is held, never used: holding it exhausts store a's pool
  void exhaustedPoolOfOneStore_doesNotStopRenewalsOfAnother(TestDatabase db) throws Exception {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    ExecutorService calls = Executors.newFixedThreadPool(2);
    try (HikariDataSource poolA = db.newPool(1, "exhausted", hc -> hc.setConnectionTimeout(3_000))) {
      JdbiIdempotencyStore a = JdbiIdempotencyStore.builder(poolA).build();
      JdbiIdempotencyStore b = JdbiIdempotencyStore.builder(db.pool()).build();
      List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
      Idempotency app = Idempotency.create(IdempotencyConfig.builder().store("a", a).store("b", b)
          .defaultStore("b").listener(events::add).build());
      Idempotency otherInstance = Idempotency.create(IdempotencyConfig.builder()
          .store(JdbiIdempotencyStore.builder(db.pool()).build()).build());
      String keyA = "a-" + UUID.randomUUID();
      String keyB = "b-" + UUID.randomUUID();
      CountDownLatch aRunning = new CountDownLatch(1);
      CountDownLatch finishA = new CountDownLatch(1);
      CountDownLatch bRunning = new CountDownLatch(1);
      AtomicInteger runsB = new AtomicInteger();

      Future<String> callA = calls.submit(() -> app.call(NAME, String.class)
          .store("a").key(keyA).lease(LEASE).run(() -> {
            aRunning.countDown();
            finishA.await();
            return "a";
          }));
      assertThat(aRunning.await(5, TimeUnit.SECONDS)).isTrue();
      try (Connection held = poolA.getConnection()) { // the application holds store a's only connection
        Future<String> callB = calls.submit(() -> app.call(NAME, String.class)
            .key(keyB).lease(LEASE).run(() -> {
              runsB.incrementAndGet();
              bRunning.countDown();
              Thread.sleep(4_000); // four leases: only renewals keep the claim
              return "b";
            }));
        assertThat(bRunning.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(2_200); // past two leases of b
        assertThatThrownBy(() -> otherInstance.call(NAME, String.class).key(keyB).onInProgress(OnInProgress.THROW)
            .run(() -> "duplicate " + runsB.incrementAndGet()))
            .as("the duplicate from another instance is refused").isInstanceOf(IdempotencyInProgressException.class);
        assertThat(callB.get(10, TimeUnit.SECONDS)).isEqualTo("b");
      } finally {
        finishA.countDown();
      }
      assertThat(callA.get(10, TimeUnit.SECONDS)).isEqualTo("a");
      assertThat(runsB).hasValue(1);
      assertThat(events).filteredOn(e -> e.type() == IdempotencyEvent.Type.LEASE_LOST).isEmpty();
    } finally {
      calls.shutdownNow();
    }
  }
}
