package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * PostgreSQL failover under load. A primary and a streaming hot standby of the test's own
 * ({@link ScratchPostgres}: initdb, then {@code pg_basebackup -R}); two worker JVMs send every key twice
 * in joined mode (the ledger row and the completion commit together) through a multi-host URL with
 * {@code targetServerType=primary}. When a third of the keys have a ledger row on the primary, the
 * primary is killed with SIGKILL (postmaster and backends at once), the standby is promoted, and the load
 * carries on against it until every key is answered.
 *
 * <p>Counted afterwards on the promoted server: ledger rows per key, and every result a caller was
 * given (each worker writes them out) against the ledger. An acknowledged execution whose row is gone
 * was lost by the failover; a key with two ledger rows, or whose callers were given two different
 * executions, was executed twice. With synchronous replication ({@code synchronous_standby_names = '*'},
 * {@code synchronous_commit = on}) a commit is acknowledged only once the standby has flushed it: both
 * counts must be 0. With asynchronous replication they are measured and reported, not asserted. Long:
 * only with {@code -Didempotent.longTests=true}.
 */
class PostgresFailoverTest {

  enum Replication {
    ASYNCHRONOUS,
    SYNCHRONOUS
  }

  private static final int WORKERS = 2;
  private static final int THREADS = 4;
  private static final int KEYS = 1500;
  private static final int COPIES = 2;
  private static final Duration LEASE = Duration.ofSeconds(3);

  @ParameterizedTest(name = "{0}")
  @EnumSource(Replication.class)
  void primaryKilledAndStandbyPromoted_underLoadFromTwoProcesses(Replication replication) throws Exception {
    LongTests.require();
    String[] primarySettings = replication == Replication.SYNCHRONOUS
        ? new String[] {"max_connections=60", "synchronous_standby_names=*", "synchronous_commit=on"}
        : new String[] {"max_connections=60"};
    try (ScratchPostgres primary = ScratchPostgres.start(primarySettings);
        ScratchPostgres standby = primary.standby("max_connections=60")) {
      String run = Calls.newRun();
      Ledger ledger = new Ledger("rel_ledger");
      try (HikariDataSource setup = primary.pool("failover-setup")) {
        Jdbi jdbi = Jdbi.create(setup);
        JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE).createSchema(true).build();
        ledger.createTable(jdbi);
        if (replication == Replication.SYNCHRONOUS) {
          String state = jdbi.withHandle(h -> h.createQuery("SELECT sync_state FROM pg_stat_replication")
              .mapTo(String.class).findOne().orElse("none"));
          assertThat(state).as("the standby is a synchronous one").isEqualTo("sync");
        }
      }
      String url = "jdbc:postgresql://127.0.0.1:" + primary.port() + ",127.0.0.1:" + standby.port()
          + "/postgres?targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2";
      WorkerOptions base = new WorkerOptions("load", "jdbi", true, url, "postgres", "", Database.TABLE,
          ledger.table(), run, 0, KEYS, COPIES, THREADS, 0, 50, 20_261_204L, LEASE, Duration.ofMinutes(3));

      List<WorkerProcess> workers = new ArrayList<>();
      try {
        for (int w = 0; w < WORKERS; w++) {
          workers.add(WorkerProcess.start(base.withWorker(w)));
        }
        for (WorkerProcess worker : workers) {
          worker.awaitLine("READY", Duration.ofMinutes(1));
        }
        long start = System.nanoTime();
        for (WorkerProcess worker : workers) {
          worker.go();
        }
        int rowsAtKill = awaitRows(primary, ledger, run, KEYS / 3);
        long killedAt = System.nanoTime();
        primary.crash();
        standby.promote();
        long promotedMillis = (System.nanoTime() - killedAt) / 1_000_000;

        List<Map<String, String>> done = new ArrayList<>();
        for (WorkerProcess worker : workers) {
          done.add(worker.awaitDone(Duration.ofMinutes(3)));
        }
        long millis = (System.nanoTime() - start) / 1_000_000;

        Map<String, List<String>> rows;
        int completed;
        try (HikariDataSource after = standby.pool("failover-check")) {
          Jdbi jdbi = Jdbi.create(after);
          rows = ledgerRows(jdbi, ledger, run);
          completed = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + Database.TABLE
                  + " WHERE state = 'COMPLETED'").mapTo(Integer.class).one());
        }
        Map<String, Set<String>> acknowledged = new HashMap<>();
        for (int w = 0; w < WORKERS; w++) {
          for (String line : Files.readAllLines(Path.of("target", "workers", run + "-w" + w + ".results"),
              StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            acknowledged.computeIfAbsent(line.substring(0, tab), k -> new HashSet<>()).add(line.substring(tab + 1));
          }
        }
        long extraRows = rows.values().stream().mapToLong(r -> r.size() - 1L).sum();
        long keysWithoutRow = 0;
        long acknowledgedButGone = 0;
        long keysGivenTwoExecutions = 0;
        for (int i = 0; i < KEYS; i++) {
          String key = base.key(i);
          List<String> executors = rows.getOrDefault(key, List.of());
          Set<String> given = acknowledged.getOrDefault(key, Set.of());
          if (executors.isEmpty()) {
            keysWithoutRow++;
          }
          acknowledgedButGone += given.stream().filter(g -> !executors.contains(g)).count();
          if (given.size() > 1) {
            keysGivenTwoExecutions++;
          }
        }
        long lost = keysWithoutRow + acknowledgedButGone;
        long duplicated = extraRows + keysGivenTwoExecutions;
        long bodyExecutions = sum(done, "bodyExecutions");

        Figures.of("PostgresFailoverTest[" + replication + "]")
            .set("processes", WORKERS + 1).set("threads", THREADS).set("keys", KEYS)
            .set("duplicatesSent", (long) WORKERS * KEYS * COPIES - KEYS).set("executions", bodyExecutions)
            .set("crashes", 1).set("faults", 1).set("lost", lost).set("duplicated", duplicated)
            .set("rowsAtKill", rowsAtKill).set("promotedMillis", promotedMillis)
            .set("acknowledgedButGone", acknowledgedButGone).set("keysWithoutRow", keysWithoutRow)
            .set("extraLedgerRows", extraRows).set("keysGivenTwoExecutions", keysGivenTwoExecutions)
            .set("completedRecords", completed).set("calls", sum(done, "calls"))
            .set("refusedInProgress", sum(done, "refused")).set("storeErrors", sum(done, "storeErrors"))
            .set("failedCalls", sum(done, "failures")).set("millis", millis)
            .report();

        assertThat(sum(done, "unsent")).as("every send answered").isZero();
        assertThat(sum(done, "storeErrors") + sum(done, "failures"))
            .as("calls that failed while the primary was down (the failover really hit the load)").isPositive();
        assertThat(acknowledged).as("every key was answered").hasSize(KEYS);
        if (replication == Replication.SYNCHRONOUS) {
          assertThat(lost).as("lost executions with synchronous replication").isZero();
          assertThat(duplicated).as("duplicated executions with synchronous replication").isZero();
          assertThat(completed).as("one completed record per key on the promoted server").isEqualTo(KEYS);
        }
      } finally {
        for (WorkerProcess worker : workers) {
          worker.close();
        }
      }
    }
  }

  /** Waits until {@code run} has at least {@code rows} ledger rows on {@code pg}; returns the count seen. */
  private static int awaitRows(ScratchPostgres pg, Ledger ledger, String run, int rows) throws Exception {
    try (HikariDataSource pool = pg.pool("failover-watch")) {
      Jdbi jdbi = Jdbi.create(pool);
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (true) {
        int n = ledger.rows(jdbi, run);
        if (n >= rows) {
          return n;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("the load wrote only " + n + " ledger rows in a minute");
        }
        Thread.sleep(20);
      }
    }
  }

  /** Every ledger row's executor, by key. */
  private static Map<String, List<String>> ledgerRows(Jdbi jdbi, Ledger ledger, String run) {
    Map<String, List<String>> rows = new HashMap<>();
    jdbi.useHandle(h -> h.createQuery("SELECT entry_key, executor FROM " + ledger.table() + " WHERE run_id = :run")
        .bind("run", run)
        .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
        .forEach(e -> rows.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue())));
    return rows;
  }

  private static long sum(List<Map<String, String>> done, String field) {
    return done.stream().mapToLong(d -> Long.parseLong(d.get(field))).sum();
  }
}
