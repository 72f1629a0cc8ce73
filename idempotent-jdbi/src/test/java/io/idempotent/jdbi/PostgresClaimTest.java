package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/** What PostgreSQL's one-statement claim writes, beyond what the contract kit can see. */
class PostgresClaimTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  /** The transaction id that last locked or deleted the row's current version (0: none). */
  private static long xmax(String storedKey) {
    try (Handle h = TestDatabase.POSTGRES.jdbi().open()) {
      return h.createQuery("SELECT xmax::text::bigint FROM idempotency_record WHERE idempotency_key = :k")
          .bind("k", storedKey).mapTo(Long.class).one();
    }
  }

  @Test
  void claim_ofACompletedKey_locksNothing() {
    TestDatabase.POSTGRES.requireReachable();
    JdbiIdempotencyStore store = TestDatabase.POSTGRES.storeBuilder().build();
    String key = "replay-" + UUID.randomUUID();
    assertThat(store.claim(key, "fp", "owner-1", LEASE).claimed()).isTrue();
    assertThat(store.complete(key, "owner-1", StoredOutcome.nullValue(), Duration.ofHours(1))).isTrue();
    assertThat(xmax(key)).isZero();

    ClaimResult replay = store.claim(key, "fp", "owner-2", LEASE);

    assertThat(replay.claimed()).isFalse();
    assertThat(replay.existing().state()).isEqualTo(RecordState.COMPLETED);
    // a row lock would have given the replay a transaction id, and its commit a WAL flush (fsync)
    assertThat(xmax(key)).as("the replay locked the row").isZero();
  }

  @Test
  void claim_ofAKeyInProgress_locksNothing() {
    TestDatabase.POSTGRES.requireReachable();
    JdbiIdempotencyStore store = TestDatabase.POSTGRES.storeBuilder().build();
    String key = "duplicate-" + UUID.randomUUID();
    assertThat(store.claim(key, "fp", "owner-1", LEASE).claimed()).isTrue();

    ClaimResult duplicate = store.claim(key, "fp", "owner-2", LEASE);

    assertThat(duplicate.claimed()).isFalse();
    assertThat(duplicate.existing().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(xmax(key)).as("the duplicate locked the row").isZero();
    assertThat(store.release(key, "owner-1")).isTrue();
  }
}
