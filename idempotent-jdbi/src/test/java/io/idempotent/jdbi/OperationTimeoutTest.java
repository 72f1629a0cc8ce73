package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store operation waits for the database at most the store's operation timeout, whatever the
 * application's pool would wait (HikariCP: 30 s by default): an exhausted or unreachable pool fails the
 * claim within it, says why and how to size the pool, and leaves the calling thread's interrupt status
 * as it was.
 */
class OperationTimeoutTest {

  enum Built { DATA_SOURCE, JDBI }

  static Stream<Object[]> cases() {
    return TestDatabase.all().flatMap(db -> Stream.of(Built.values()).map(b -> new Object[] {db, b}));
  }

  @SuppressWarnings("try") // the connection is held, unused, to exhaust the pool
  @ParameterizedTest(name = "{0} built on {1}")
  @MethodSource("cases")
  void claim_onAnExhaustedPoolThatWaits30s_failsWithinTheOperationTimeout_namingThePoolAndTheSizingRule(
      TestDatabase db, Built built) throws Exception {
    db.requireReachable();
    String table = "optimeout_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffffff);
    try (HikariDataSource pool = db.newPool(1, "exhausted", hc -> hc.setConnectionTimeout(30_000))) {
      JdbiIdempotencyStore.Builder builder = built == Built.DATA_SOURCE
          ? JdbiIdempotencyStore.builder(pool) : JdbiIdempotencyStore.builder(Jdbi.create(pool));
      JdbiIdempotencyStore store = builder.table(table).createSchema(true)
          .operationTimeout(Duration.ofMillis(500)).build();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      AtomicInteger runs = new AtomicInteger();
      try (Connection taken = pool.getConnection()) { // the pool's only connection, held elsewhere
        long start = System.nanoTime();
        Throwable refused = catchThrowable(() -> idempotency.call("optimeout", String.class).key("k")
            .run(() -> "ran-" + runs.incrementAndGet()));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(refused).isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("did not run");
        assertThat(refused.getCause()).hasMessageContaining("got no database connection from")
            .hasMessageContaining("exhausted") // the pool's name
            .hasMessageContaining("operation timeout of PT0.5S")
            .hasMessageContaining("size it for the calls that run at the same time");
        assertThat(waited).as("not the pool's 30 s").isBetween(Duration.ofMillis(450), Duration.ofSeconds(3));
        assertThat(Thread.currentThread().isInterrupted()).as("the deadline's interrupt is not left behind").isFalse();
        assertThat(runs).hasValue(0);

        // the store now fails at once, for a second, instead of each call waiting its timeout again
        start = System.nanoTime();
        assertThatThrownBy(() -> idempotency.call("optimeout", String.class).key("k2").run(() -> "ran"))
            .isInstanceOf(IdempotencyStoreException.class)
            .cause().hasMessageContaining("fail at once");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(200));
      }
      Thread.sleep(Reachability.PAUSE_MILLIS);
      assertThat(idempotency.call("optimeout", String.class).key("k").run(() -> "ran-" + runs.incrementAndGet()))
          .as("with the connection back, a second later, the call runs").isEqualTo("ran-1");
      Jdbi.create(pool).useHandle(h -> h.execute("DROP TABLE " + table));
    }
  }

  @SuppressWarnings("try") // the connection is held, unused, to exhaust the pool
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void aThreadInterruptedBeforeTheCall_keepsItsInterrupt_andTheClaimFailsAtOnce(TestDatabase db) throws Exception {
    db.requireReachable();
    String table = "optimeout_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffffff);
    try (HikariDataSource pool = db.newPool(1, "interrupted", hc -> hc.setConnectionTimeout(30_000))) {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool).table(table).createSchema(true).build();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      try (Connection taken = pool.getConnection()) {
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        assertThatThrownBy(() -> idempotency.call("optimeout", String.class).key("k").run(() -> "ran"))
            .isInstanceOf(IdempotencyStoreException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(Thread.interrupted()).as("the caller's own interrupt is kept").isTrue();
      }
      Jdbi.create(pool).useHandle(h -> h.execute("DROP TABLE " + table));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void theStoresOwnConnectionsWaitForRepliesAtMostTheTimeout_andGoBackToThePoolAsTheyCame(TestDatabase db)
      throws Exception {
    db.requireReachable();
    String table = "optimeout_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffffff);
    try (HikariDataSource pool = db.newPool(1, "bounded")) {
      int before;
      try (Connection c = pool.getConnection()) {
        before = c.getNetworkTimeout();
      }
      List<Integer> atStatements = new CopyOnWriteArrayList<>();
      DataSource watched = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {DataSource.class}, (p, m, args) -> {
            Object result = invoke(m, pool, args);
            if (!m.getName().equals("getConnection")) {
              return result;
            }
            Connection c = (Connection) result;
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (pc, cm, cargs) -> {
                  if (cm.getName().equals("prepareStatement")) {
                    atStatements.add(c.getNetworkTimeout());
                  }
                  return invoke(cm, c, cargs);
                });
          });
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(watched).table(table).createSchema(true)
          .operationTimeout(Duration.ofSeconds(2)).build();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      atStatements.clear();
      assertThat(idempotency.call("optimeout", String.class).key("k").run(() -> "ran")).isEqualTo("ran");
      assertThat(atStatements).isNotEmpty();
      if (db != TestDatabase.H2) { // an embedded H2 has no network to wait on, and keeps no such setting
        assertThat(atStatements).as("every statement of the store waits at most 2 s for its reply")
            .containsOnly(2000);
      }
      try (Connection c = pool.getConnection()) {
        assertThat(c.getNetworkTimeout()).as("the pool gets its connection back as it was").isEqualTo(before);
      }
      Jdbi.create(pool).useHandle(h -> h.execute("DROP TABLE " + table));
    }
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badTimeouts")
  void operationTimeoutOutOfRange_isRefused_byTheBuilderAndThePropertyAlike(String value) {
    assertThatThrownBy(() -> JdbiIdempotencyStore.builder(TestDatabase.H2.pool()).operationTimeout(Duration.parse(value)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 100 ms and 1 hour");
    assertThatThrownBy(() -> new JdbiStoreProvider().create(new StoreSettings("jdbi",
        Map.of("url", "jdbc:h2:mem:optimeout", "operation-timeout", value))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.jdbi.operation-timeout").hasMessageContaining("between 100 ms and 1 hour");
  }

  static Stream<String> badTimeouts() {
    return Stream.of("PT0S", "PT0.05S", "PT2H");
  }
}
