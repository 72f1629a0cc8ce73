package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A purge that meets an expired row locked by a long transaction (a joined caller that updated it) must
 * neither wait for it nor, while waiting, hold locks on other expired rows that a claim wants to take over.
 */
class PurgeLockingTest {

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void purge_skipsARowLockedByALongTransaction_andNeverMakesAClaimWait(TestDatabase db) throws Exception {
    db.requireReachable();
    // a table of its own: expired rows other tests left behind would make the purge's batches, and the
    // time a claim of one of them waits for its batch to be deleted, a matter of what ran before
    String table = "purge_locking_records";
    try (Connection c = db.connect(); java.sql.Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
    JdbiIdempotencyStore store = db.storeBuilder().table(table).createSchema(true).build();
    String prefix = "purge-lock-" + UUID.randomUUID() + "-";
    // expired rows: three that expired first, then the one the long transaction holds
    for (int i = 0; i < 3; i++) {
      assertThat(store.claim(prefix + i, "fp", "dead-" + i, Duration.ZERO).claimed()).isTrue();
    }
    Thread.sleep(5);
    String held = prefix + "held";
    assertThat(store.claim(held, "fp", "slow", Duration.ZERO).claimed()).isTrue();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (Connection longTransaction = db.connect()) {
      longTransaction.setAutoCommit(false);
      try (PreparedStatement ps = longTransaction.prepareStatement(
          "UPDATE " + table + " SET fingerprint = 'touched' WHERE idempotency_key = ?")) {
        ps.setString(1, held);
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      Future<Integer> purge = background.submit(() -> store.purgeExpired(1_000_000));
      Thread.sleep(300); // the purge reached the held row
      Assertions.assertTimeoutPreemptively(Duration.ofSeconds(3), () ->
          assertThat(store.claim(prefix + 0, "fp", "retry", Duration.ofMinutes(1)).claimed())
              .as("a claim of another expired key does not wait for the purge").isTrue());
      assertThat(purge.get(3, TimeUnit.SECONDS)).as("the purge finished without the held row").isPositive();
      longTransaction.rollback();
    } finally {
      background.shutdownNow();
    }
    assertThat(store.find(prefix + 0)).isPresent();
  }
}
