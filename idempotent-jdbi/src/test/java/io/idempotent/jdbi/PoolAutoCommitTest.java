package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.Effects;
import io.idempotent.IdempotencyEvent;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store's own units of work commit whatever the pool's auto-commit default is: every combination of
 * pool setting, builder and transaction mode, on each server, on a table the store creates itself.
 */
class PoolAutoCommitTest {

  private static final String NAME = "pool.autocommit";

  private static int rows(TestDatabase db, String table) {
    try (Handle h = Jdbi.create(db::connect).open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + table).mapTo(Integer.class).one();
    }
  }

  enum Built { JDBI, DATA_SOURCE }

  static Stream<Arguments> matrix() {
    List<Arguments> all = new ArrayList<>();
    for (TestDatabase db : List.of(TestDatabase.POSTGRES, TestDatabase.MARIADB)) {
      for (boolean autoCommit : new boolean[] {true, false}) {
        for (Built built : Built.values()) {
          for (TransactionMode mode : TransactionMode.values()) {
            for (Effects effects : new Effects[] {Effects.EXTERNAL, Effects.TRANSACTIONAL}) {
              all.add(Arguments.of(db, autoCommit, built, mode, effects));
            }
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} autoCommit={1} {2} {3} {4}")
  @MethodSource("matrix")
  void sameKeyThreeTimes_runsOnce_andCommitsItsRecord_whateverThePoolsAutoCommit(
      TestDatabase db, boolean autoCommit, Built built, TransactionMode mode, Effects effects) {
    db.requireReachable();
    String table = "autocommit_" + Integer.toHexString(UUID.randomUUID().hashCode());
    try (HikariDataSource pool = db.newPool(3, "autocommit-" + autoCommit, hc -> hc.setAutoCommit(autoCommit))) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore.Builder builder =
          built == Built.JDBI ? JdbiIdempotencyStore.builder(jdbi) : JdbiIdempotencyStore.builder(pool);
      JdbiIdempotencyStore store = builder.table(table).transactionMode(mode).createSchema(true).build();
      Jdbi application = store.jdbi();
      List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store)
          .listener(e -> events.add(e.type())).build());
      String key = "k-" + UUID.randomUUID();
      AtomicInteger runs = new AtomicInteger();
      try {
        for (int i = 0; i < 3; i++) {
          String result = application.withHandle(h -> {
            h.begin();
            String r = idempotency.call(NAME, String.class).key(key).effects(effects)
                .run(() -> "run " + runs.incrementAndGet());
            h.commit();
            return r;
          });
          assertThat(result).isEqualTo("run 1");
        }
        assertThat(runs).hasValue(1);
        assertThat(events).doesNotContain(IdempotencyEvent.Type.LEASE_LOST, IdempotencyEvent.Type.STORE_ERROR);
        String storedKey = StoredKeys.compose(NAME, null, key, JdbiIdempotencyStore.KEY_RULES);
        assertThat(store.find(storedKey).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        // seen from a connection that has nothing to do with the store
        assertThat(rows(db, table)).isEqualTo(1);
      } finally {
        Jdbi.create(db::connect).useHandle(h -> h.execute("DROP TABLE IF EXISTS " + table));
      }
    }
  }
}
