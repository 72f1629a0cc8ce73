package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An existing table whose key column compares loosely (MariaDB's case- and space-insensitive default
 * collations, PostgreSQL's blank-padded {@code char(n)}) or is not the primary key would let distinct keys
 * share a row: {@code build()} refuses it, and the DDL its message gives makes the table right.
 */
class KeyColumnShapeTest {

  private static final String TABLE = "wrong_key_shape";

  private static void recreate(TestDatabase db, Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("DROP TABLE IF EXISTS " + TABLE));
    JdbiIdempotencyStore.builder(jdbi).table(TABLE).createSchema(true).build();
  }

  private static JdbiIdempotencyStore.Builder builder(Jdbi jdbi) {
    return JdbiIdempotencyStore.builder(jdbi).table(TABLE);
  }

  /** Runs the statements after "Fix: " in a refusal's message. */
  private static void applyFix(Jdbi jdbi, String message) {
    String ddl = message.substring(message.indexOf("Fix: ") + 5).replaceAll(" \\([^)]*\\)$", "");
    jdbi.useHandle(h -> {
      for (String statement : ddl.split("; ")) {
        h.execute(statement);
      }
    });
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void build_refusesALooselyComparingKeyColumn_withTheDdlThatFixesIt(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    recreate(db, jdbi);
    jdbi.useHandle(h -> h.execute(db == TestDatabase.MARIADB
        ? "ALTER TABLE " + TABLE + " MODIFY idempotency_key VARCHAR(255) CHARACTER SET utf8mb4"
            + " COLLATE utf8mb4_general_ci NOT NULL"
        : "ALTER TABLE " + TABLE + " ALTER COLUMN idempotency_key TYPE char(255)"));

    String message = org.assertj.core.api.Assertions.catchThrowable(() -> builder(jdbi).build()).getMessage();
    assertThat(message).contains(TABLE).contains("idempotency_key")
        .contains(db == TestDatabase.MARIADB ? "utf8mb4_general_ci" : "character(255)").contains("ALTER TABLE");

    applyFix(jdbi, message);
    JdbiIdempotencyStore store = builder(jdbi).build();
    assertThat(store.claim("order-1", "fp", "a", Duration.ofMinutes(1)).claimed()).isTrue();
    assertThat(store.claim("Order-1", "fp", "b", Duration.ofMinutes(1)).claimed()).isTrue();
    assertThat(store.claim("order-1 ", "fp", "c", Duration.ofMinutes(1)).claimed()).isTrue();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void build_refusesAKeyColumnThatIsNotThePrimaryKey(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    recreate(db, jdbi);
    jdbi.useHandle(h -> h.execute(db == TestDatabase.MARIADB
        ? "ALTER TABLE " + TABLE + " DROP PRIMARY KEY"
        : "ALTER TABLE " + TABLE + " DROP CONSTRAINT " + TABLE + "_pkey"));

    assertThatThrownBy(() -> builder(jdbi).build()).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("primary key").hasMessageContaining("ADD PRIMARY KEY (idempotency_key)");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void build_refusesATableOfAnotherShape_namingTheColumnsItLacks_onEveryDatabase(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    String other = "other_shaped_records";
    jdbi.useHandle(h -> {
      h.execute("DROP TABLE IF EXISTS " + other);
      h.execute("CREATE TABLE " + other + " (idempotency_key VARCHAR(255)"
          + (db == TestDatabase.MARIADB ? " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" : "")
          + " PRIMARY KEY, payload VARCHAR(100), expires_at TIMESTAMP)");
    });
    try {
      assertThatThrownBy(() -> JdbiIdempotencyStore.builder(jdbi).table(other).build())
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining(other).hasMessageContaining("has no column fingerprint, state, owner_token")
          .hasMessageContaining("not a table of this library's layout");
    } finally {
      jdbi.useHandle(h -> h.execute("DROP TABLE " + other));
    }
  }

  /** A table with every column the other databases' statements use, but not the ones MariaDB's still write. */
  @org.junit.jupiter.api.Test
  void build_onMariaDb_refusesATableWithoutTheColumnsItsStatementsWrite() {
    TestDatabase db = TestDatabase.MARIADB;
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    String other = "portable_shaped_records";
    jdbi.useHandle(h -> {
      h.execute("DROP TABLE IF EXISTS " + other);
      h.execute("CREATE TABLE " + other + " (idempotency_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE"
          + " utf8mb4_nopad_bin NOT NULL PRIMARY KEY, fingerprint VARCHAR(255) NOT NULL, state VARCHAR(16) NOT NULL,"
          + " owner_token VARCHAR(255), taken_over BOOLEAN NOT NULL DEFAULT FALSE, expires_at DATETIME(6) NOT NULL,"
          + " outcome_kind VARCHAR(8), result_json LONGTEXT, failure_type VARCHAR(1000), failure_message TEXT)");
    });
    try {
      assertThatThrownBy(() -> JdbiIdempotencyStore.builder(jdbi).table(other).build())
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining(other).hasMessageContaining("has no column lease_until, created_at, completed_at");
    } finally {
      jdbi.useHandle(h -> h.execute("DROP TABLE " + other));
    }
  }
}
