package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process killed with SIGKILL while it holds claims mid-execution. Transactional calls (joined mode,
 * its ledger rows and claims in open transactions): the server rolls them back with the dead connections,
 * so another process runs each held key at once, and the ledger ends with exactly one row per key. Calls
 * recorded on their own (independent mode, each ledger row committed by itself): their committed claims
 * keep the keys in progress while the dead owner's lease lasts, then another process takes each over and
 * runs it once more — the dead process's rows stay, at least once outside the store's transaction. Keys
 * the dead process had completed are replayed either way. Long: only with {@code -Didempotent.longTests=true}.
 */
class ProcessCrashTest {

  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int COMPLETED = 20;
  private static final int HELD = 8;

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @ParameterizedTest(name = "joined={0}")
  @ValueSource(booleans = {true, false})
  void processKilledWhileHoldingClaims_theKeysRunAgainOnceTheirClaimsAreGone(boolean joined) throws Exception {
    LongTests.require();
    Database db = Database.POSTGRES;
    db.requireReachable();
    String run = Calls.newRun();
    Ledger ledger = new Ledger("rel_ledger");
    try (HikariDataSource pool = db.newPool(HELD + 4, "crash-survivor")) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE)
          .transactionMode(joined ? TransactionMode.JOINED : TransactionMode.INDEPENDENT).createSchema(true).build();
      ledger.createTable(jdbi);
      WorkerOptions options = new WorkerOptions("hold", "jdbi", joined, db.url, db.user, db.password,
          Database.TABLE, ledger.table(), run, 0, COMPLETED, 1, 1, HELD, 0, 1L, LEASE, Duration.ofMinutes(3));

      long killedAt;
      try (WorkerProcess victim = WorkerProcess.start(options)) {
        victim.awaitLine("HOLDING " + HELD, Duration.ofMinutes(1));
        for (int i = 0; i < HELD; i++) {
          String stored = StoredKeys.compose(LedgerService.NAME, null, options.heldKey(i), store.keyRules());
          assertThat(store.find(stored).orElseThrow().state()).as("held claim %d", i).isEqualTo(RecordState.IN_PROGRESS);
        }
        victim.kill();
        killedAt = System.nanoTime();
      }

      // the survivor: its own pool and configuration, the same woven method
      EventCounter events = new EventCounter();
      Idempotency.install(IdempotencyConfig.builder().store(store).defaultLease(LEASE).listener(events).build());
      LedgerService survivor = new LedgerService(jdbi, ledger, run, "survivor", LedgerService.AfterWrite.NOTHING);
      for (int i = 0; i < COMPLETED; i++) {
        String key = options.key(i);
        String replayed = joined ? jdbi.inTransaction(h -> survivor.record(key)) : survivor.record(key);
        assertThat(replayed).startsWith("w0/");
        assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
      }
      assertThat(survivor.executions()).as("completed keys are replayed, not run again").isZero();

      Map<Integer, Integer> refusals = new HashMap<>();
      Map<Integer, Duration> stuckFor = new HashMap<>();
      long deadline = killedAt + LEASE.plusSeconds(30).toNanos();
      while (stuckFor.size() < HELD) {
        for (int i = 0; i < HELD; i++) {
          if (stuckFor.containsKey(i)) {
            continue;
          }
          String key = options.heldKey(i);
          try {
            String result = joined ? jdbi.inTransaction(h -> survivor.record(key)) : survivor.record(key);
            assertThat(result).isEqualTo("survivor/" + Thread.currentThread().getName());
            assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
            stuckFor.put(i, Duration.ofNanos(System.nanoTime() - killedAt));
          } catch (IdempotencyInProgressException e) {
            refusals.merge(i, 1, Integer::sum);
          }
        }
        assertThat(System.nanoTime() - deadline).as("every held key is taken over").isNegative();
        Thread.sleep(50);
      }

      assertThat(survivor.executions()).as("each held key ran exactly once after the crash").isEqualTo(HELD);
      Map<String, Integer> rows = ledger.rowsPerKey(jdbi, run);
      assertThat(rows).as("no key is missing").hasSize(COMPLETED + HELD);
      if (joined) {
        assertThat(stuckFor.values()).as("nothing of the dead transactions was committed: no lease to wait out")
            .allSatisfy(d -> assertThat(d).isLessThan(LEASE));
        assertThat(events.count(Type.LEASE_TAKEN_OVER)).isZero();
        assertThat(rows.values()).as("exactly one ledger row per key").containsOnly(1);
      } else {
        assertThat(refusals.keySet()).as("every held key was refused while the dead owner's lease lasted")
            .hasSize(HELD);
        assertThat(stuckFor.values()).as("taken over once the lease ran out, not before")
            .allSatisfy(d -> assertThat(d).isGreaterThan(Duration.ofSeconds(1)))
            .allSatisfy(d -> assertThat(d).as("stuck no longer than the lease, with a margin")
                .isLessThan(LEASE.plusSeconds(5)));
        assertThat(events.count(Type.LEASE_TAKEN_OVER)).isEqualTo(HELD);
        for (int i = 0; i < COMPLETED; i++) {
          assertThat(rows.get(options.key(i))).as("a completed key: one row").isOne();
        }
        for (int i = 0; i < HELD; i++) {
          assertThat(rows.get(options.heldKey(i))).as("a held key: the dead run's committed row, and the retry's")
              .isEqualTo(2);
        }
      }
      for (int i = 0; i < HELD; i++) {
        String key = options.heldKey(i);
        String again = joined ? jdbi.inTransaction(h -> survivor.record(key)) : survivor.record(key);
        assertThat(again).as("and replays from now on").startsWith("survivor/");
        assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
      }

      long longest = stuckFor.values().stream().mapToLong(Duration::toMillis).max().orElse(0);
      Figures.of("ProcessCrashTest[" + db + (joined ? ",transactional" : ",independent") + "]")
          .set("processes", 2).set("threads", HELD).set("keys", COMPLETED + HELD)
          .set("duplicatesSent", COMPLETED + HELD + refusals.values().stream().mapToInt(Integer::intValue).sum() + HELD)
          .set("executions", COMPLETED + survivor.executions()).set("crashes", 1)
          .set("lost", COMPLETED + HELD - rows.size())
          .set(joined ? "duplicated" : "reExecutedOutsideTheStoresTransaction",
              rows.values().stream().mapToInt(n -> n - 1).sum())
          .set("leaseMillis", LEASE.toMillis()).set("longestStuckMillis", longest)
          .report();
    }
  }
}
