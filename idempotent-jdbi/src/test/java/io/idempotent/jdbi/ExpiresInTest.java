package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Records read back say how long they have left by the database's clock ({@code expires_at} minus the
 * database's now), computed in the statement that read them: a cache in front of the table keeps a copy
 * no longer than that.
 */
class ExpiresInTest {

  private static final Duration TTL = Duration.ofMinutes(10);
  private static final Duration LEASE = Duration.ofSeconds(30);

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void completedRecord_reportsTheRestOfItsTtl_fromFindAndFromClaim(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    String key = "expires-" + UUID.randomUUID();
    store.claim(key, "fp", "owner", LEASE);
    store.complete(key, "owner", StoredOutcome.valueJson("\"v\""), TTL);

    assertThat(store.find(key).orElseThrow().expiresIn())
        .isBetween(TTL.minusMinutes(1), TTL);
    ClaimResult again = store.claim(key, "fp", "other", LEASE);
    assertThat(again.claimed()).isFalse();
    assertThat(again.existing().expiresIn()).isBetween(TTL.minusMinutes(1), TTL);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void inProgressRecord_reportsTheRestOfItsLease_andARenewalExtendsIt(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    String key = "expires-" + UUID.randomUUID();
    store.claim(key, "fp", "owner", LEASE);

    IdempotencyRecord found = store.find(key).orElseThrow();
    assertThat(found.expiresIn()).isBetween(LEASE.minusSeconds(10), LEASE);
    ClaimResult duplicate = store.claim(key, "fp", "other", LEASE);
    assertThat(duplicate.existing().expiresIn()).isBetween(LEASE.minusSeconds(10), LEASE);

    assertThat(store.renew(key, "owner", TTL)).isTrue();
    assertThat(store.find(key).orElseThrow().expiresIn()).isBetween(TTL.minusMinutes(1), TTL);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void durationsBeyondADay_areReportedWhole(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    String key = "expires-" + UUID.randomUUID();
    Duration ttl = Duration.ofDays(400).plusHours(5);
    store.claim(key, "fp", "owner", LEASE);
    store.complete(key, "owner", StoredOutcome.nullValue(), ttl);
    assertThat(store.find(key).orElseThrow().expiresIn()).isBetween(ttl.minusMinutes(1), ttl);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void remainingLifetime_isComputedInTheReadingStatement_withoutAnExtraRoundTrip(TestDatabase db) {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    CountingDataSource counting = new CountingDataSource(db.pool());
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(counting.dataSource))
        .dialect(db.dialect())
        .build();
    String key = "expires-" + UUID.randomUUID();
    store.claim(key, "fp", "owner", LEASE);
    store.complete(key, "owner", StoredOutcome.nullValue(), TTL);
    counting.reset();
    assertThat(store.find(key).orElseThrow().expiresIn()).isNotNull();
    assertThat(counting.reset()).as("find: one statement").isEqualTo(1);
    assertThat(store.claim(key, "fp", "other", LEASE).existing().expiresIn()).isNotNull();
    int claimStatements = counting.reset();
    assertThat(claimStatements).as("claim: as many statements as before (README, round trips)")
        .isEqualTo(1);
  }
}
