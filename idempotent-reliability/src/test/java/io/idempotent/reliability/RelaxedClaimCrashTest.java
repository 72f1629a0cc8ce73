package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What relaxed claim durability trades away, shown on a real server crash: a claim committed with
 * {@code synchronous_commit = off} and lost with the database's unwritten WAL lets a duplicate run the
 * method a second time, where a durable claim survives the same crash and refuses the duplicate. A
 * completion stays durable in both modes. The crash is SIGKILL to every process of a PostgreSQL of the
 * test's own ({@link ScratchPostgres}) while the method runs, after its claim was acknowledged.
 */
class RelaxedClaimCrashTest {

  private static final String NAME = "crash.charge";
  private static final Duration LEASE = Duration.ofMinutes(5);
  /** Each crash loses the relaxed claim unless the WAL writer's round (every 10 s) fell in the few ms before it. */
  private static final int ATTEMPTS = 3;

  @Test
  void databaseCrash_losesARelaxedClaim_soADuplicateRunsAgain_butKeepsADurableClaimAndEveryCompletion()
      throws Exception {
    try (ScratchPostgres pg = ScratchPostgres.start()) {
      AtomicInteger runs = new AtomicInteger();

      // a call completed with relaxed claims: its completion committed durably
      try (HikariDataSource pool = pg.pool("before-crash")) {
        Idempotency relaxed = idempotency(pool, true, true);
        assertThat(relaxed.call(NAME, String.class).key("completed").run(() -> "done #" + runs.incrementAndGet()))
            .isEqualTo("done #1");
      }

      // durable claim: the method runs, the database crashes before the outcome is recorded
      try (HikariDataSource pool = pg.pool("durable")) {
        Idempotency durable = idempotency(pool, false, false);
        String first = durable.call(NAME, String.class).key("durable").run(() -> {
          runs.incrementAndGet();
          pg.crash();
          return "durable first";
        });
        assertThat(first).isEqualTo("durable first");
      }
      pg.startServer();
      try (HikariDataSource pool = pg.pool("after-durable-crash")) {
        Idempotency after = idempotency(pool, false, false);
        assertThatThrownBy(() -> after.call(NAME, String.class).key("durable").run(() -> "durable again #"
            + runs.incrementAndGet()))
            .as("the durable claim survived the crash: the duplicate is refused while its lease lasts")
            .isInstanceOf(IdempotencyInProgressException.class);
        assertThat(after.call(NAME, String.class).key("completed").run(() -> "again #" + runs.incrementAndGet()))
            .as("a completion survives the crash").isEqualTo("done #1");
      }
      assertThat(runs).hasValue(2);

      // relaxed claim: the same crash loses the claim, and the duplicate runs the method again
      int lost = 0;
      int attempts = 0;
      while (lost == 0 && attempts < ATTEMPTS) {
        attempts++;
        String key = "relaxed-" + attempts;
        AtomicInteger executions = new AtomicInteger();
        try (HikariDataSource pool = pg.pool("relaxed")) {
          Idempotency relaxed = idempotency(pool, true, false);
          relaxed.call(NAME, String.class).key(key).run(() -> {
            executions.incrementAndGet();
            pg.crash();
            return "relaxed first";
          });
        }
        pg.startServer();
        try (HikariDataSource pool = pg.pool("after-relaxed-crash")) {
          Idempotency after = idempotency(pool, true, false);
          try {
            String second = after.call(NAME, String.class).key(key).run(() -> {
              executions.incrementAndGet();
              return "relaxed second";
            });
            assertThat(second).isEqualTo("relaxed second");
            assertThat(executions).as("the lost claim let the duplicate run again").hasValue(2);
            lost++;
          } catch (IdempotencyInProgressException survived) {
            // the WAL writer wrote the claim just before the crash: this attempt shows nothing
          }
          assertThat(after.call(NAME, String.class).key("completed").run(() -> "again #" + runs.incrementAndGet()))
              .as("a completion survives the crash").isEqualTo("done #1");
        }
      }
      assertThat(lost).as("a relaxed claim lost in %d database crashes", attempts).isEqualTo(1);
      assertThat(runs).as("completed and durable keys never ran again").hasValue(2);
    }
  }

  private static Idempotency idempotency(HikariDataSource pool, boolean relaxed, boolean createSchema) {
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool)
        .relaxedClaimDurability(relaxed)
        .createSchema(createSchema)
        .build();
    return Idempotency.create(IdempotencyConfig.builder().store(store).defaultLease(LEASE).leaseRenewal(false).build());
  }
}
