package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.SqlDialect;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table store goes down (its pool is closed, or it points at a port where nothing listens): every
 * decision fails closed, and only outcomes already copied near are still replayed.
 */
class LayeredFarStoreDownTest {

  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService background = Executors.newSingleThreadExecutor();
  private Idempotency idempotency;

  @AfterEach
  void stop() {
    background.shutdownNow();
  }

  private void instance(DataSource dataSource, SqlDialect dialect) {
    JdbiIdempotencyStore far = JdbiIdempotencyStore.builder(Jdbi.create(dataSource)).dialect(dialect).build();
    idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), far)).build());
  }

  private CallResult<String> call(String key, Object payload) {
    return idempotency.call("down", String.class).key(key).payload(payload)
        .execute(() -> "result-" + key + "-" + runs.incrementAndGet());
  }

  private HikariDataSource ownPool(TestDatabase db) {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    HikariDataSource pool = db.newPool(4, "going-down");
    instance(pool, db.dialect());
    return pool;
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void databaseDown_coldKeyFailsClosed_whileAWarmKeyIsStillReplayed(TestDatabase db) {
    HikariDataSource pool = ownPool(db);
    String warm = "warm-" + UUID.randomUUID();
    String cold = "cold-" + UUID.randomUUID();
    assertThat(call(warm, 1).replayed()).isFalse();

    pool.close(); // the database is gone for this instance

    assertThatThrownBy(() -> call(cold, 1)).isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).as("nothing ran for the cold key").hasValue(1);
    CallResult<String> replay = call(warm, 1);
    assertThat(replay.replayed()).isTrue();
    assertThat(replay.value()).isEqualTo("result-" + warm + "-1");
    // the warm copy also still refuses other arguments under its key
    assertThatThrownBy(() -> call(warm, 2)).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(runs).hasValue(1);
  }

  /**
   * A duplicate of a call running in this JVM is refused from memory while the database is down; but the
   * running call's outcome cannot be written to the table, so it is not copied near either: a retry after
   * it is not answered from memory. While the outcome waits here to be recorded, the key is in progress in
   * this JVM, and a retry is refused as such.
   */
  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void callRunningWhenTheDatabaseGoesDown_duplicateRefusedInMemory_butARetryAfterItFailsClosed(TestDatabase db) throws Exception {
    HikariDataSource pool = ownPool(db);
    String key = "running-" + UUID.randomUUID();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first = background.submit(() -> idempotency.call("down", String.class).key(key).payload(1)
        .run(() -> {
          runs.incrementAndGet();
          running.countDown();
          finish.await();
          return "ran while the database went down";
        }));
    assertThat(running.await(1, TimeUnit.MINUTES)).isTrue();
    pool.close();
    // a duplicate of the running call is still answered from memory
    assertThatThrownBy(() -> call(key, 1)).isInstanceOf(IdempotencyInProgressException.class);
    finish.countDown();

    assertThat(first.get(1, TimeUnit.MINUTES)).isEqualTo("ran while the database went down");
    assertThatThrownBy(() -> call(key, 1)).as("the outcome waits to be recorded")
        .isInstanceOf(IdempotencyInProgressException.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void databaseUnreachable_fromTheStart_failsClosed_andNothingRuns() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + closedPort + "/idempotent_test");
    hc.setUsername("idempotent");
    hc.setPassword("idempotent");
    hc.setInitializationFailTimeout(-1); // start without a database, as an application may
    hc.setConnectionTimeout(Duration.ofMillis(500).toMillis());
    try (HikariDataSource unreachable = new HikariDataSource(hc)) {
      instance(unreachable, SqlDialect.POSTGRESQL);
      assertThatThrownBy(() -> call("k-" + UUID.randomUUID(), 1)).isInstanceOf(IdempotencyStoreException.class);
      assertThatThrownBy(() -> call("k-" + UUID.randomUUID(), 1)).isInstanceOf(IdempotencyStoreException.class);
      assertThat(runs).hasValue(0);
    }
  }
}
