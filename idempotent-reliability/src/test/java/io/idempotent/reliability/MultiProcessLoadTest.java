package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.internal.StoredKeys;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The load test across processes: several JVMs, each with several threads, call the woven
 * {@link LedgerService#record} over thousands of keys on one shared table; every key is sent several
 * times by every process, concurrently and shuffled. The ledger must end with exactly one row per key,
 * none missing, and every result any process saw must name the execution the ledger recorded. Runs for
 * the JDBI store and the layered store on PostgreSQL, and shorter on MariaDB. Long: only with
 * {@code -Didempotent.longTests=true}.
 */
class MultiProcessLoadTest {

  /** One configuration of the load. */
  record Load(Database db, String store, int processes, int threads, int keys, int copies) {
    @Override
    public String toString() {
      return db + "/" + store + " " + processes + "x" + threads + " threads, " + keys + " keys x" + copies;
    }
  }

  /** Keys per window of the send order: every process works on the same few keys at a time. */
  private static final int WINDOW = 50;

  static Stream<Load> loads() {
    return Stream.of(
        new Load(Database.POSTGRES, "jdbi", 4, 4, 5000, 3),
        new Load(Database.POSTGRES, "layered", 4, 4, 5000, 3),
        new Load(Database.MARIADB, "jdbi", 4, 2, 2000, 3));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("loads")
  void keysSentManyTimesFromSeveralProcesses_executeExactlyOnceEach(Load load) throws Exception {
    LongTests.require();
    Database db = load.db();
    db.requireReachable();
    String run = Calls.newRun();
    Ledger ledger = new Ledger("rel_ledger");
    try (HikariDataSource pool = db.newPool(2, "load-parent")) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE).createSchema(true).build();
      ledger.createTable(jdbi);

      WorkerOptions base = new WorkerOptions("load", load.store(), false, db.url, db.user, db.password,
          Database.TABLE, ledger.table(), run, 0, load.keys(), load.copies(), load.threads(), 0, WINDOW, 20_240_601L,
          Duration.ofSeconds(30), Duration.ofMinutes(5));
      List<WorkerProcess> workers = new ArrayList<>();
      try {
        for (int w = 0; w < load.processes(); w++) {
          workers.add(WorkerProcess.start(base.withWorker(w)));
        }
        for (WorkerProcess worker : workers) {
          worker.awaitLine("READY", Duration.ofMinutes(1));
        }
        long start = System.nanoTime();
        for (WorkerProcess worker : workers) {
          worker.go();
        }
        List<Map<String, String>> done = new ArrayList<>();
        for (WorkerProcess worker : workers) {
          done.add(worker.awaitDone(Duration.ofMinutes(6)));
        }
        long millis = (System.nanoTime() - start) / 1_000_000;

        long calls = sum(done, "calls");
        long bodyExecutions = sum(done, "bodyExecutions");
        long executed = sum(done, "executed");
        long replayed = sum(done, "replayed");
        long refused = sum(done, "refused");
        long storeErrors = sum(done, "storeErrors");
        long mismatches = sum(done, "mismatches");
        long sent = (long) load.processes() * load.keys() * load.copies();
        Map<String, Integer> rows = ledger.rowsPerKey(jdbi, run);
        long duplicated = rows.values().stream().mapToLong(n -> n - 1L).sum();
        long lost = load.keys() - rows.size();
        String prefix = StoredKeys.compose(LedgerService.NAME, null, run + ":", JdbiIdempotencyStore.KEY_RULES);
        int completed = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + Database.TABLE
                + " WHERE idempotency_key LIKE :p AND state = 'COMPLETED'")
            .bind("p", prefix + "%").mapTo(Integer.class).one());

        Figures.of("MultiProcessLoadTest[" + db + "/" + load.store() + "]")
            .set("processes", load.processes()).set("threads", load.threads()).set("keys", load.keys())
            .set("duplicatesSent", sent - load.keys()).set("executions", bodyExecutions)
            .set("lost", lost).set("duplicated", duplicated)
            .set("calls", calls).set("replayed", replayed).set("refusedInProgress", refused)
            .set("storeErrors", storeErrors).set("resultMismatches", mismatches).set("millis", millis)
            .report();

        assertThat(rows).as("every key has a ledger row").hasSize(load.keys());
        assertThat(rows.values()).as("exactly one ledger row per key").containsOnly(1);
        assertThat(bodyExecutions).as("executions across all processes").isEqualTo(load.keys());
        assertThat(executed).isEqualTo(load.keys());
        assertThat(executed + replayed).as("every send answered").isEqualTo(sent);
        assertThat(mismatches).as("results that name another execution").isZero();
        assertThat(storeErrors).as("store errors without faults").isZero();
        assertThat(completed).as("completed records").isEqualTo(load.keys());
      } finally {
        for (WorkerProcess worker : workers) {
          worker.close();
        }
      }
    }
  }

  private static long sum(List<Map<String, String>> done, String field) {
    return done.stream().mapToLong(d -> Long.parseLong(d.get(field))).sum();
  }
}
