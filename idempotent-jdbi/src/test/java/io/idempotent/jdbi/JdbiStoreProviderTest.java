package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdbiStoreProviderTest {

  private static StoreSettings settings(Map<String, String> values) {
    return new StoreSettings("jdbi", values);
  }

  @Test
  void serviceLoader_findsTheProvider_namedJdbi_aboveInMemoryStores() {
    List<IdempotencyStoreProvider> providers = StreamSupport.stream(
        ServiceLoader.load(IdempotencyStoreProvider.class).spliterator(), false).toList();
    assertThat(providers).anySatisfy(p -> {
      assertThat(p).isInstanceOf(JdbiStoreProvider.class);
      assertThat(p.name()).isEqualTo("jdbi");
      assertThat(p.priority()).isEqualTo(100);
    });
  }

  @Test
  void create_fromSettings_buildsAPooledStore_withTableAndMode() {
    IdempotencyStore created = new JdbiStoreProvider().create(settings(Map.of(
        "url", "jdbc:h2:mem:provider-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
        "user", "sa",
        "POOL_SIZE", "3",
        "table", "app_records",
        "mode", "Joined",
        "purge-interval", "PT0S")));
    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) created) {
      assertThat(store.dialect()).isEqualTo(SqlDialect.H2);
      assertThat(store.table()).isEqualTo("app_records");
      assertThat(store.transactionMode()).isEqualTo(TransactionMode.JOINED);
      assertThat(store.claim("k", "fp", "o", Duration.ofMinutes(1)).claimed()).isTrue();
    }
  }

  @Test
  void create_withoutUrl_usesAnH2FileUnderUserHome_whoseRecordsSurviveARestart(@TempDir Path home) {
    String previous = System.getProperty("user.home");
    System.setProperty("user.home", home.toString());
    try {
      assertThat(JdbiStoreProvider.defaultH2Path()).isEqualTo(home.resolve(".idempotent").resolve("idempotent"));
      try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) new JdbiStoreProvider().create(settings(Map.of()))) {
        assertThat(store.dialect()).isEqualTo(SqlDialect.H2);
        store.claim("survivor", "fp", "owner", Duration.ofMinutes(1));
        store.complete("survivor", "owner", StoredOutcome.valueJson("\"kept\""), Duration.ofHours(1));
      }
      assertThat(Files.exists(home.resolve(".idempotent").resolve("idempotent.mv.db"))).isTrue();
      try (JdbiIdempotencyStore restarted = (JdbiIdempotencyStore) new JdbiStoreProvider().create(settings(Map.of()))) {
        var record = restarted.find("survivor").orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.outcome().json()).isEqualTo("\"kept\"");
      }
    } finally {
      System.setProperty("user.home", previous);
    }
  }

  @Test
  void environmentConfiguration_choosesTheJdbiStore_fromProperties() {
    IdempotencyConfig config = Idempotency.fromProperties(Map.of(
        "idempotent.jdbi.url", "jdbc:h2:mem:env-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
        "idempotent.jdbi.purge-interval", "PT0S"), getClass().getClassLoader());
    assertThat(config.defaultStoreName()).isEqualTo("jdbi");
    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) config.store("jdbi")) {
      assertThat(store.dialect()).isEqualTo(SqlDialect.H2);
    }
  }

  @Test
  void aMySqlUrl_isRefusedBeforeConnecting_namingTheSupportedDatabases() {
    for (String url : List.of("jdbc:mysql://127.0.0.1:3306/app", " JDBC:MySQL://db/app?useSSL=false")) {
      assertThatThrownBy(() -> new JdbiStoreProvider().create(settings(Map.of("url", url, "user", "u"))))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("MySQL")
          .hasMessageContaining("PostgreSQL")
          .hasMessageContaining("MariaDB")
          .hasMessageContaining("H2")
          .hasMessageContaining("jdbc:mariadb:");
    }
  }

  @Test
  void aDatabaseThatReportsMySql_hasNoDialect() {
    assertThat(SqlDialect.fromProductName("MySQL")).isEmpty();
    assertThat(SqlDialect.fromProductName("MariaDB")).contains(SqlDialect.MARIADB);
    assertThat(SqlDialect.values()).extracting(Enum::name).containsExactly("POSTGRESQL", "MARIADB", "H2");
  }

  @Test
  void create_withBadSettings_failsWithAClearMessage() {
    JdbiStoreProvider provider = new JdbiStoreProvider();
    String url = "jdbc:h2:mem:bad-" + UUID.randomUUID();
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", url, "table", "x; DROP TABLE y"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.jdbi.table")
        .hasMessageNotContaining("DROP");
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", url, "mode", "sometimes"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("joined, transaction-scoped or joined-transaction-scoped");
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", url, "pool-size", "0"))))
        .isInstanceOf(IdempotencyConfigurationException.class);
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", url, "create-schema", "maybe"))))
        .isInstanceOf(IdempotencyConfigurationException.class);
  }
}
