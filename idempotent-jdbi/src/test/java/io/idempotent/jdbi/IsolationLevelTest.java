package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store on sessions whose default isolation level is each one the servers offer (set as an
 * application would, by the pool's connection init SQL): every primitive behaves, and concurrent callers
 * of the same keys from two instances, with values, final failures and transient failures mixed, run each
 * key once and all see one outcome. Serialization failures and deadlocks are repeated by the store.
 */
class IsolationLevelTest {

  private static final int INSTANCES = 2;
  private static final int THREADS_PER_INSTANCE = 4;

  enum Level {
    READ_UNCOMMITTED("READ UNCOMMITTED"),
    READ_COMMITTED("READ COMMITTED"),
    REPEATABLE_READ("REPEATABLE READ"),
    SERIALIZABLE("SERIALIZABLE");

    final String sql;

    Level(String sql) {
      this.sql = sql;
    }

    String sessionDefault(TestDatabase db) {
      return db == TestDatabase.POSTGRES
          ? "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + sql
          : "SET SESSION TRANSACTION ISOLATION LEVEL " + sql;
    }
  }

  /** A final failure with a public (String) constructor, so that it can be replayed. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
      super(message);
    }
  }

  static Stream<Arguments> matrix() {
    return TestDatabase.servers().flatMap(db -> Stream.of(Level.values()).map(level -> Arguments.of(db, level)));
  }

  private static HikariDataSource pool(TestDatabase db, Level level, int size, String name) {
    return db.newPool(size, name + "-" + level, hc -> hc.setConnectionInitSql(level.sessionDefault(db)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("matrix")
  void everyPrimitive_behaves_atTheSessionsIsolationLevel(TestDatabase db, Level level) throws SQLException {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    try (HikariDataSource pool = pool(db, level, 2, "primitives")) {
      try (Connection c = pool.getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(db == TestDatabase.POSTGRES
              ? "SELECT current_setting('transaction_isolation')" : "SELECT @@tx_isolation")) {
        rs.next();
        assertThat(rs.getString(1).replace('-', ' ')).as("the session's isolation").isEqualToIgnoringCase(level.sql);
      }
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool).createSchema(true).build();
      String key = "iso-" + UUID.randomUUID();
      Duration minute = Duration.ofMinutes(1);
      assertThat(store.claim(key, "fp", "o1", minute).claimed()).isTrue();
      assertThat(store.claim(key, "fp", "o2", minute).claimed()).isFalse();
      assertThat(store.renew(key, "o1", minute)).isTrue();
      assertThat(store.release(key, "o1")).isTrue();
      assertThat(store.claim(key, "fp", "o2", minute).claimed()).isTrue();
      assertThat(store.complete(key, "o2", StoredOutcome.valueJson("\"done\""), minute)).isTrue();
      assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
      assertThat(store.claim(key, "fp", "o3", minute).existing().outcome().json()).isEqualTo("\"done\"");
      String expired = "iso-expired-" + UUID.randomUUID();
      assertThat(store.claim(expired, "fp", "o1", minute).claimed()).isTrue();
      // an outcome kept for no time: expired at once, and purgeable at once (an expired claim whose owner
      // died may stay until its purge_after, up to a day later on PostgreSQL: see PurgeColumnTest)
      assertThat(store.complete(expired, "o1", StoredOutcome.nullValue(), Duration.ZERO)).isTrue();
      assertThat(store.purgeExpired(1000)).isPositive();
      assertThat(store.find(expired)).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("matrix")
  void concurrentCallersWithMixedFailures_runEachKeyOnce_andSeeOneOutcome(TestDatabase db, Level level)
      throws Exception {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    int keys = level == Level.SERIALIZABLE ? 200 : 80;
    String name = "iso-" + UUID.randomUUID();
    Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    Set<Integer> transientFailed = ConcurrentHashMap.newKeySet();
    Map<Integer, Set<String>> seen = new ConcurrentHashMap<>();
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    List<HikariDataSource> pools = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        HikariDataSource pool = pool(db, level, THREADS_PER_INSTANCE + 1, "instance-" + i);
        pools.add(pool);
        JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool).build();
        Idempotency instance = Idempotency.create(IdempotencyConfig.builder().store(store)
            .defaultWaitTimeout(Duration.ofSeconds(30)).build());
        for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
          List<Integer> order = new ArrayList<>();
          for (int k = 0; k < keys; k++) {
            order.add(k);
          }
          Collections.shuffle(order, new Random(i * 31L + t));
          futures.add(threads.submit(() -> {
            start.await();
            for (int k : order) {
              try {
                String r = instance.call(name, String.class).key("k" + k).onInProgress(OnInProgress.WAIT)
                    .finalExceptions(Refused.class).run(() -> body(k, executions, transientFailed));
                seen.computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet()).add("value " + r);
              } catch (Refused e) {
                seen.computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet()).add("refused " + e.getMessage());
              } catch (TransientFailure e) {
                // the one caller whose run failed transiently; the key was released for the others
              } catch (RuntimeException e) {
                unexpected.add(e);
              }
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(3, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
      pools.forEach(HikariDataSource::close);
    }
    assertThat(unexpected).as("calls that failed for the store's sake").isEmpty();
    assertThat(executions).hasSize(keys);
    assertThat(executions.entrySet()).allSatisfy(e -> assertThat(e.getValue().get())
        .as("runs of key %s that reached an outcome", e.getKey()).isEqualTo(1));
    assertThat(seen.entrySet()).allSatisfy(e -> assertThat(e.getValue())
        .as("outcomes seen by the callers of key %s", e.getKey()).hasSize(1));
  }

  private static final class TransientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TransientFailure() {
      super("transient", null, false, false);
    }
  }

  /** Key k: a value, a final failure, or (every fourth) a transient failure on its first run, then a value. */
  private static String body(int k, Map<Integer, AtomicInteger> executions, Set<Integer> transientFailed) {
    if (k % 4 == 3 && transientFailed.add(k)) {
      throw new TransientFailure();
    }
    executions.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
    if (k % 4 == 1) {
      throw new Refused("refused " + k);
    }
    return "result " + k;
  }
}
