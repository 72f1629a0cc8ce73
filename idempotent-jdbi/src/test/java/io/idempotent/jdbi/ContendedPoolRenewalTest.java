package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.StoredOutcome;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pool the application has exhausted, healthy database: a claim that waits past the operation timeout
 * fails, and the store takes its database for unreachable for a moment, failing its next operations at
 * once. A call already running must keep its lease all the same, and a finished one must get its outcome
 * recorded: renewals and completions wait their turn for a connection instead of being refused by that
 * pause (when they were, a burst of callers on a small pool let leases run out and keys run twice).
 */
class ContendedPoolRenewalTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  @SuppressWarnings("try") // the connection is held, never used: holding it exhausts the pool
  void pauseAfterAnExhaustedPool_refusesNewClaims_butNotTheRenewalOrCompletionOfARunningOne(TestDatabase db)
      throws Exception {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    try (HikariDataSource pool = db.newPool(1, "exhausted", hc -> hc.setConnectionTimeout(2_000))) {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool).operationTimeout(Duration.ofMillis(200)).build();
      String running = "running-" + UUID.randomUUID();
      assertThat(store.claim(running, "fp", "owner", LEASE).claimed()).isTrue();

      try (Connection held = pool.getConnection()) { // the application takes the pool's only connection
        assertThatThrownBy(() -> store.claim("timed-out-" + UUID.randomUUID(), "fp", "other", LEASE))
            .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("got no database connection");
      }
      assertThatThrownBy(() -> store.claim("paused-" + UUID.randomUUID(), "fp", "other", LEASE))
          .as("new claims fail at once while the store pauses")
          .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("did not answer its last operation");

      assertThat(store.renew(running, "owner", LEASE)).as("the running call's renewal is not refused").isTrue();
      assertThat(store.complete(running, "owner", StoredOutcome.valueJson("\"done\""), Duration.ofHours(1)))
          .as("nor is its completion").isTrue();
      assertThat(store.find(running).orElseThrow().outcome().json()).isEqualTo("\"done\"");
    }
  }
}
