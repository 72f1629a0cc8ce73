package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An application whose database user may read and write the table but not create anything (the table was
 * created by a migration, or by an administrator): {@code createSchema(true)}, which the properties
 * provider sets by default, must leave the existing table alone instead of failing.
 */
class LimitedRightsTest {

  private static final String USER = "idempotent_dml";
  private static final String PASSWORD = "dml-only";

  private static void createDmlOnlyUser(TestDatabase db) throws SQLException {
    try (Connection admin = db.connectAsAdmin(); Statement st = admin.createStatement()) {
      if (db == TestDatabase.POSTGRES) {
        st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + USER + "') THEN"
            + " CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'; END IF; END $$");
        st.execute("GRANT USAGE ON SCHEMA public TO " + USER);
        st.execute("REVOKE CREATE ON SCHEMA public FROM " + USER);
        st.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_record TO " + USER);
      } else {
        for (String host : new String[] {"%", "localhost"}) {
          st.execute("CREATE USER IF NOT EXISTS '" + USER + "'@'" + host + "' IDENTIFIED BY '" + PASSWORD + "'");
          st.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON idempotent_test.idempotency_record TO '" + USER
              + "'@'" + host + "'");
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void createSchema_byAUserWithDmlRightsOnly_acceptsTheExistingTable(TestDatabase db) throws SQLException {
    db.requireReachable();
    db.storeBuilder().build(); // the table exists, created by its owner
    createDmlOnlyUser(db);

    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(() -> db.connect(USER, PASSWORD)))
        .createSchema(true).build();

    String key = "dml-" + UUID.randomUUID();
    assertThat(store.claim(key, "fp", "o", Duration.ofMinutes(1)).claimed()).isTrue();
    assertThat(store.complete(key, "o", StoredOutcome.nullValue(), Duration.ofMinutes(1))).isTrue();
    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }
}
