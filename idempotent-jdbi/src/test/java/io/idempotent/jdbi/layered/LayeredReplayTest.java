package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.internal.StoredKeys;
import io.idempotent.jdbi.CountingDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays through Caffeine in front of the table, counting the statements that reach the database: a near
 * hit reaches none, a far hit one claim, after which the key is served near, for no longer than the table
 * keeps it.
 */
class LayeredReplayTest {

  private static final String NAME = "layered.replay";

  /** One application instance: a near cache, the table store on a counted connection, an engine. */
  private static final class Instance {
    final CountingDataSource counting;
    final CaffeineIdempotencyStore near = CaffeineIdempotencyStore.builder().build();
    final LayeredIdempotencyStore layered;
    final Idempotency idempotency;
    final AtomicInteger runs = new AtomicInteger();

    Instance(TestDatabase db) {
      db.requireReachable();
      db.storeBuilder().build(); // the schema, once
      counting = new CountingDataSource(db.pool());
      JdbiIdempotencyStore far = JdbiIdempotencyStore.builder(Jdbi.create(counting.dataSource))
          .dialect(db.dialect()).build();
      counting.reset(); // build() reads the catalog once to check the key column
      layered = new LayeredIdempotencyStore(near, far);
      idempotency = Idempotency.create(IdempotencyConfig.builder().store(layered).build());
    }

    CallResult<String> call(String key, Duration ttl) {
      return idempotency.call(NAME, String.class).key(key).payload(key).ttl(ttl)
          .execute(() -> "result-" + key + "-" + runs.incrementAndGet());
    }
  }

  private static String storedKey(String key) {
    return StoredKeys.compose(NAME, null, key, JdbiIdempotencyStore.KEY_RULES);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void replay_nearHit_reachesNoDatabase(TestDatabase db) {
    Instance app = new Instance(db);
    String key = UUID.randomUUID().toString();
    app.call(key, Duration.ofMinutes(10));
    assertThat(app.counting.reset()).as("the first call claims and completes in the table").isPositive();

    for (int i = 0; i < 100; i++) {
      CallResult<String> replay = app.call(key, Duration.ofMinutes(10));
      assertThat(replay.replayed()).isTrue();
      assertThat(replay.value()).isEqualTo("result-" + key + "-1");
    }
    assertThat(app.counting.reset()).as("statements for 100 near-hit replays").isZero();
    assertThat(app.runs).hasValue(1);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void replay_ofAKeyCompletedElsewhere_asksTheTableOnce_thenIsServedNear(TestDatabase db) {
    Instance other = new Instance(db);
    Instance app = new Instance(db);
    String key = UUID.randomUUID().toString();
    other.call(key, Duration.ofMinutes(10));

    CallResult<String> farHit = app.call(key, Duration.ofMinutes(10));
    assertThat(farHit.replayed()).isTrue();
    assertThat(farHit.value()).isEqualTo("result-" + key + "-1");
    int farHitStatements = app.counting.reset();
    assertThat(farHitStatements).as("a far hit is one claim, one statement").isEqualTo(1);

    assertThat(app.call(key, Duration.ofMinutes(10)).value()).isEqualTo("result-" + key + "-1");
    assertThat(app.counting.reset()).as("the second replay is served near").isZero();
    assertThat(app.runs).hasValue(0);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void nearMiss_isNeverFinal_anInstanceWithAColdCacheReplaysFromTheTable(TestDatabase db) {
    Instance before = new Instance(db);
    String key = UUID.randomUUID().toString();
    before.call(key, Duration.ofMinutes(10));

    Instance restarted = new Instance(db); // an empty near cache, as after a restart or an eviction
    CallResult<String> r = restarted.call(key, Duration.ofMinutes(10));
    assertThat(r.replayed()).isTrue();
    assertThat(r.value()).isEqualTo("result-" + key + "-1");
    assertThat(restarted.runs).hasValue(0);
  }

  /**
   * Another instance completed the key with a 3 s TTL; half of it has passed when this instance first
   * asks. The copy it keeps near must be gone by the time the table's record expires: a copy kept for the
   * whole TTL would still be there.
   */
  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void farHit_isCachedNear_forAtMostTheFarRecordsRemainingLifetime(TestDatabase db) throws Exception {
    Duration ttl = Duration.ofSeconds(3);
    Instance other = new Instance(db);
    Instance app = new Instance(db);
    String key = UUID.randomUUID().toString();
    other.call(key, ttl);
    Duration farLeft = other.layered.far().find(storedKey(key)).orElseThrow().expiresIn();
    Thread.sleep(ttl.toMillis() / 2);

    assertThat(app.call(key, ttl).replayed()).isTrue();
    assertThat(app.near.find(storedKey(key))).as("the far hit was copied near")
        .hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));

    // wait until the table's record has expired (its remaining lifetime, measured before the sleep above)
    Thread.sleep(farLeft.toMillis() - ttl.toMillis() / 2 + 100);
    assertThat(app.layered.far().find(storedKey(key))).as("the table's record has expired").isEmpty();
    assertThat(app.near.find(storedKey(key))).as("and so has the near copy").isEmpty();
    assertThat(app.call(key, ttl).replayed()).as("the key runs again").isFalse();
    assertThat(app.runs).hasValue(1);
  }
}
