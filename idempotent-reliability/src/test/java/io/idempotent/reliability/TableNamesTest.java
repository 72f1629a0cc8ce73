package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.JdbiStoreProvider;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A configured table or schema name that carries SQL is rejected before any statement runs, through
 * the builder and through properties; a canary table proves that nothing was executed. Plain
 * (schema-qualified) names keep working.
 */
class TableNamesTest {

  static final List<String> HOSTILE = List.of(
      "t; DROP TABLE rel_canary", "rel_canary; --", "rel_canary--", "x WHERE 1=1", "x/*", "x*/", "x'", "x\"",
      "\"rel_canary\"", "`rel_canary`", "[rel_canary]", "x)", "x(", "x,y", "x y", "x\ny", "x\u0000", "x\t",
      "a.b.c", "public.x;DROP TABLE rel_canary", "public;DROP TABLE rel_canary.x", ".x", "x.", "x..y", "",
      " ", "1table", "tábla", "ｔable", "таблица", "\uFEFFx", "x\u200B", "x%", "x$y", "x-y",
      "a".repeat(49), "public." + "b".repeat(49), "x'||pg_sleep(5)||'");

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.Database#all")
  void tableNamesCarryingSql_areRejected_beforeAnyStatementRuns(Database db) {
    db.requireReachable();
    try (HikariDataSource pool = db.newPool(2, "names")) {
      Jdbi jdbi = Jdbi.create(pool);
      jdbi.useHandle(h -> {
        h.execute("CREATE TABLE IF NOT EXISTS rel_canary (id INT)");
        h.execute("INSERT INTO rel_canary (id) VALUES (1)");
      });
      int properties = 0;
      for (String name : HOSTILE) {
        assertThat(catchThrowable(() -> JdbiIdempotencyStore.builder(jdbi).table(name).createSchema(true).build()))
            .as("builder, table %s", Calls.printable(name))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Invalid table name")
            .satisfies(e -> assertThat(name.length() < 4 || !e.getMessage().contains(name))
                .as("the rejected name is not echoed into logs").isTrue());
        if (name.trim().isEmpty() || PLAIN.matcher(name.trim()).matches()) {
          continue; // property values are trimmed, and a blank one means the default table
        }
        properties++;
        StoreSettings settings = new StoreSettings("jdbi", Map.of("url", db.url, "user", db.user,
            "password", db.password, "table", name, "purge-interval", "PT0S"));
        assertThat(catchThrowable(() -> new JdbiStoreProvider().create(settings)))
            .as("property idempotent.jdbi.table=%s", Calls.printable(name))
            .isInstanceOf(IdempotencyConfigurationException.class)
            .hasMessageContaining("idempotent.jdbi.table");
      }
      int canaryRows = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM rel_canary").mapTo(Integer.class).one());
      assertThat(canaryRows).as("the canary table and its row are still there").isPositive();

      // a plain schema-qualified name still works
      String schema = switch (db) {
        case H2 -> "PUBLIC";
        case POSTGRES -> "public";
        case MARIADB -> "idempotent_test";
      };
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
          .table(schema + ".rel_qualified_Names_1").createSchema(true).build();
      String key = UUID.randomUUID().toString();
      assertThat(store.claim(key, "fp", "owner", Duration.ofMinutes(1)).claimed()).isTrue();
      assertThat(store.complete(key, "owner", StoredOutcome.nullValue(), Duration.ofMinutes(1))).isTrue();

      Figures.of("TableNamesTest[" + db + "]").set("badInputs", HOSTILE.size() + properties)
          .set("builderNames", HOSTILE.size()).set("propertyValues", properties).report();
    }
  }
}
