package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.StoredOutcome;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Schema creation (custom names, repeated, concurrent), the shipped DDL, and purging. */
class SchemaAndPurgeTest {

  private static void drop(Jdbi jdbi, String table) {
    jdbi.useHandle(h -> h.execute("DROP TABLE IF EXISTS " + table));
  }

  private static int rows(Jdbi jdbi, String table) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + table).mapTo(Integer.class).one();
    }
  }

  @ParameterizedTest
  @EnumSource(SqlDialect.class)
  void shippedDdl_existsForEveryDialect_andIsRepeatable(SqlDialect dialect) throws Exception {
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(dialect.schemaResource())) {
      assertThat(in).as(dialect.schemaResource()).isNotNull();
      String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(ddl).contains("CREATE TABLE IF NOT EXISTS idempotency_record").contains("PRIMARY KEY")
          .contains("expires_at");
    }
    List<String> renamed = SchemaScript.statements(dialect, TableName.of("app.my_records"));
    String index = dialect == SqlDialect.POSTGRESQL || dialect == SqlDialect.H2
        ? "my_records_purge_idx" : "my_records_expires_at_idx";
    assertThat(String.join("\n", renamed)).contains("app.my_records").contains(index)
        .doesNotContain("idempotency_record").doesNotContain("--");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void withoutItsTable_aCallFails_namingTheTableAndHowToCreateIt(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    String table = "absent_records_" + Integer.toHexString(db.name.hashCode() & 0xffff);
    drop(jdbi, table);
    for (TransactionMode mode : List.of(TransactionMode.INDEPENDENT, TransactionMode.TRANSACTION_SCOPED)) {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).transactionMode(mode).build();
      assertThatThrownBy(() -> store.claimForCall("k", "fp", "owner", Duration.ofMinutes(1), io.idempotent.Effects.UNDECLARED))
          .as(mode.toString())
          .isInstanceOf(IdempotencyStoreException.class)
          .hasMessageContaining("table does not exist").hasMessageContaining("createSchema(true)")
          .hasMessageContaining("schema-postgresql.sql")
          .satisfies(e -> assertThat(e.getMessage().toLowerCase(Locale.ROOT)).contains(table));
      store.close();
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void createSchema_concurrentlyAndRepeatedly_withACustomTable_works(TestDatabase db) throws Exception {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    String table = "custom_records_" + Integer.toHexString(db.name.hashCode() & 0xffff);
    drop(jdbi, table);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<JdbiIdempotencyStore>> starts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Callable<JdbiIdempotencyStore> start = () ->
            JdbiIdempotencyStore.builder(jdbi).table(table).createSchema(true).build();
        starts.add(pool.submit(start));
      }
      for (Future<JdbiIdempotencyStore> f : starts) {
        JdbiIdempotencyStore store = f.get();
        store.createSchema();
        assertThat(store.table()).isEqualTo(table);
      }
      JdbiIdempotencyStore store = starts.get(0).get();
      String owner = UUID.randomUUID().toString();
      assertThat(store.claim("k", "fp", owner, Duration.ofMinutes(1)).claimed()).isTrue();
      assertThat(rows(jdbi, table)).isEqualTo(1);
    } finally {
      pool.shutdownNow();
      drop(jdbi, table);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  @SuppressWarnings("try") // the scheduler purges on its own thread while the block waits
  void purgeScheduler_deletesExpiredRowsInBatches_andKeepsLiveOnes(TestDatabase db) throws Exception {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    String table = "purge_records";
    drop(jdbi, table);
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).createSchema(true).build();
    for (int i = 0; i < 7; i++) {
      String owner = UUID.randomUUID().toString();
      store.claim("expired-" + i, "fp", owner, Duration.ofMinutes(1));
      store.complete("expired-" + i, owner, StoredOutcome.nullValue(), Duration.ofMillis(200));
    }
    store.claim("running", "fp", UUID.randomUUID().toString(), Duration.ofMinutes(1));
    String owner = UUID.randomUUID().toString();
    store.claim("kept", "fp", owner, Duration.ofMinutes(1));
    store.complete("kept", owner, StoredOutcome.nullValue(), Duration.ofMinutes(1));
    Thread.sleep(300);
    try (PurgeScheduler purging = PurgeScheduler.start(store, Duration.ofMillis(50), 2)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (rows(jdbi, table) > 2 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    }
    assertThat(rows(jdbi, table)).isEqualTo(2);
    assertThat(store.find("kept")).isPresent();
    assertThat(store.find("running")).isPresent();
    drop(jdbi, table);
  }

  @Test
  void purgeNow_stopsAtTheFirstShortBatch() {
    int[] calls = {0};
    var store = new io.idempotent.spi.IdempotencyStore() {
      @Override
      public int purgeExpired(int max) {
        calls[0]++;
        return calls[0] < 3 ? max : max - 1;
      }

      @Override
      public io.idempotent.spi.ClaimResult claim(String k, String f, String o, Duration l) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean complete(String k, String o, StoredOutcome outcome, Duration ttl) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean release(String k, String o) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean renew(String k, String o, Duration l) {
        throw new UnsupportedOperationException();
      }

      @Override
      public java.util.Optional<io.idempotent.spi.IdempotencyRecord> find(String k) {
        throw new UnsupportedOperationException();
      }
    };
    try (PurgeScheduler purging = PurgeScheduler.start(store, Duration.ofHours(1), 10)) {
      assertThat(purging.purgeNow()).isEqualTo(29);
      assertThat(calls[0]).isEqualTo(3);
    }
  }
}
