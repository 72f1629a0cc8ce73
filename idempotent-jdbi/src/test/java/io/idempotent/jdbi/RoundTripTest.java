package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Counts the statements (network round trips on a server) of a first call (claim + complete) and of a
 * replay, per dialect, and holds them to what the README promises.
 */
class RoundTripTest {

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void firstCallAndReplay_takeTheDocumentedRoundTrips(TestDatabase db) {
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    CountingDataSource counting = new CountingDataSource(db.pool());
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(counting.dataSource))
        .dialect(SqlDialect.fromProductName(db.name).orElseThrow())
        .build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    // warm up the statement paths once
    idempotency.call("rt", String.class).key(UUID.randomUUID().toString()).run(() -> "warm");

    String key = UUID.randomUUID().toString();
    counting.reset();
    idempotency.call("rt", String.class).key(key).payload(1).run(() -> "value");
    int first = counting.reset();
    assertThat(idempotency.call("rt", String.class).key(key).payload(1).execute(() -> "again").replayed()).isTrue();
    int replay = counting.reset();

    System.out.printf("round trips on %s: first call (claim + complete) %d, replay %d%n", db.name, first, replay);
    switch (store.dialect()) {
      case POSTGRESQL, MARIADB -> {
        assertThat(first).isEqualTo(2);
        assertThat(replay).isEqualTo(1);
      }
      case H2 -> {
        // a read and an insert claim a fresh key; then the completion
        assertThat(first).isEqualTo(3);
        assertThat(replay).isEqualTo(1);
      }
      default -> {
        assertThat(first).isEqualTo(3);
        assertThat(replay).isEqualTo(2);
      }
    }
  }
}
