package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.SqlDialect;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** {@code idempotent.store=layered} builds Caffeine in front of the table store from properties. */
class LayeredStoreProviderTest {

  private final ClassLoader loader = getClass().getClassLoader();

  @Test
  void storeLayered_withAJdbiUrl_buildsCaffeineInFrontOfTheTable() throws Exception {
    String url = "jdbc:h2:mem:layered-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    IdempotencyConfig config = Idempotency.fromProperties(Map.of(
        "idempotent.store", "layered",
        "IDEMPOTENT_JDBI_URL", url,
        "idempotent.jdbi.user", "sa",
        "idempotent.jdbi.mode", "joined",
        "idempotent.jdbi.purge-interval", "PT0S",
        "idempotent.caffeine.maximum-completed", "1000"), loader);

    assertThat(config.defaultStoreName()).isEqualTo("layered");
    try (LayeredIdempotencyStore store = (LayeredIdempotencyStore) config.store("layered")) {
      JdbiIdempotencyStore far = (JdbiIdempotencyStore) store.far();
      assertThat(far.dialect()).isEqualTo(SqlDialect.H2);
      assertThat(far.transactionMode()).isEqualTo(TransactionMode.JOINED);

      Idempotency idempotency = Idempotency.create(config);
      // joined mode runs methods in a transaction on the store's own Jdbi
      assertThat(far.jdbi().inTransaction(h -> idempotency.call("p", String.class).key("k").execute(() -> "v"))
          .replayed()).isFalse();
      CallResult<String> replay = idempotency.call("p", String.class).key("k").execute(() -> "again");
      assertThat(replay.replayed()).isTrue();
      assertThat(replay.value()).isEqualTo("v");
      // the outcome is in the table at the configured url
      try (Handle h = Jdbi.open(url, "sa", "")) {
        assertThat(h.createQuery("SELECT state FROM idempotency_record").mapTo(String.class).list())
            .containsExactly("COMPLETED");
        // and a copy of it in the Caffeine store in front, which replays it without the table
        h.execute("DELETE FROM idempotency_record");
      }
      CallResult<String> nearReplay = idempotency.call("p", String.class).key("k").execute(() -> "once more");
      assertThat(nearReplay.replayed()).isTrue();
      assertThat(nearReplay.value()).isEqualTo("v");
    }
  }

  @Test
  void storeLayered_namingStoresThatAreNotThere_failsListingTheAvailableOnes() {
    assertThatThrownBy(() -> Idempotency.fromProperties(Map.of(
        "idempotent.store", "layered",
        "idempotent.layered.far", "redis"), loader))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.layered.far")
        .hasMessageContaining("jdbi")
        .hasMessageContaining("caffeine");
  }

  @Test
  void storeLayered_isNeverChosenUnlessNamed() {
    IdempotencyConfig config = Idempotency.fromProperties(Map.of(
        "idempotent.jdbi.url", "jdbc:h2:mem:unnamed-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
        "idempotent.jdbi.purge-interval", "PT0S"), loader);
    assertThat(config.defaultStoreName()).isEqualTo("jdbi");
    ((JdbiIdempotencyStore) config.store("jdbi")).close();
  }
}
