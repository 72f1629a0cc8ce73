package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The purge column of the PostgreSQL and H2 tables: {@code purge_after}, set by the claim, is never before
 * {@code expires_at}, so the purge deletes expired rows only and a completed record lives its whole TTL;
 * the completion leaves it alone when the claim guessed the TTL, so that no indexed column changes (a HOT
 * update on PostgreSQL); a table made by an earlier version is refused with the DDL that migrates it.
 */
class PurgeColumnTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private static Jdbi freshTable(TestDatabase db, String table) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> h.execute("DROP TABLE IF EXISTS " + table));
    return jdbi;
  }

  private static int rowsBreakingTheInvariant(Jdbi jdbi, String table) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE purge_after < expires_at")
          .mapTo(Integer.class).one();
    }
  }

  private static boolean purgeAfterIsExpiry(Jdbi jdbi, String table, String key) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE idempotency_key = :k AND purge_after = expires_at")
          .bind("k", key).mapTo(Integer.class).one() == 1;
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void completedRecords_liveTheirWholeTtl_andThePurgeColumnNeverPrecedesExpiry(TestDatabase db) throws Exception {
    String table = "purge_column_records";
    Jdbi jdbi = freshTable(db, table);
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).createSchema(true).build();
    // a late owner nobody replaced: its claim's purge_after has passed when it completes with a longer TTL
    String late = "late";
    assertThat(store.claim(late, "fp", "owner-late", Duration.ofMillis(150)).claimed()).isTrue();
    Thread.sleep(300);
    assertThat(store.complete(late, "owner-late", StoredOutcome.nullValue(), Duration.ofSeconds(2))).isTrue();
    assertThat(purgeAfterIsExpiry(jdbi, table, late)).as("the completion moved purge_after to the expiry").isTrue();
    // the TTL guessed by the next claim (2 s) fits its completion: purge_after stays as the claim set it
    String guessed = "guessed";
    assertThat(store.claim(guessed, "fp", "owner-guessed", Duration.ofSeconds(1)).claimed()).isTrue();
    assertThat(store.complete(guessed, "owner-guessed", StoredOutcome.nullValue(), Duration.ofSeconds(2))).isTrue();
    assertThat(purgeAfterIsExpiry(jdbi, table, guessed)).as("purge_after left as the claim set it").isFalse();
    // a TTL much shorter than the guess: purge_after moves back to the expiry, so the row does not linger
    String brief = "brief";
    assertThat(store.claim(brief, "fp", "owner-brief", LONG).claimed()).isTrue();
    assertThat(store.renew(brief, "owner-brief", LONG)).isTrue();
    assertThat(store.complete(brief, "owner-brief", StoredOutcome.nullValue(), Duration.ofMillis(100))).isTrue();
    assertThat(purgeAfterIsExpiry(jdbi, table, brief)).isTrue();
    String running = "running";
    assertThat(store.claim(running, "fp", "owner-running", LONG).claimed()).isTrue();
    assertThat(store.renew(running, "owner-running", LONG.multipliedBy(2))).isTrue();
    assertThat(rowsBreakingTheInvariant(jdbi, table)).isZero();

    Thread.sleep(200);
    assertThat(store.purgeExpired(100)).as("only the brief record has expired").isEqualTo(1);
    assertThat(store.find(late)).isPresent();
    assertThat(store.find(guessed)).isPresent();
    assertThat(store.find(running).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);

    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int purged = 0;
    while (purged < 2 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      assertThat(store.find(running)).isPresent();
      purged += store.purgeExpired(100);
    }
    assertThat(purged).as("both two-second records are purged once expired (the guessed one within a lease"
        + " of its expiry)").isEqualTo(2);
    assertThat(store.find(running)).isPresent();
    jdbi.useHandle(h -> h.execute("DROP TABLE " + table));
  }

  @Test
  void postgres_completionWithTheGuessedTtl_isAHotUpdate() throws Exception {
    TestDatabase db = TestDatabase.POSTGRES;
    String table = "hot_update_records";
    Jdbi jdbi = freshTable(db, table);
    JdbiIdempotencyStore.builder(jdbi).table(table).createSchema(true).build();
    TableStatements statements = JdbiIdempotencyStore.statements(SqlDialect.POSTGRESQL, TableName.of(table), false);
    Duration ttl = Duration.ofHours(24);
    int calls = 40;
    try (Connection warm = db.pool().getConnection(); Connection c = db.pool().getConnection()) {
      // the first completion teaches the statements the TTL, which its claim could not guess; on a connection
      // (a server process) of its own, so that its counts are not the measured ones
      firstCall(warm, statements, "warm", ttl);
      c.setAutoCommit(false);
      for (int i = 0; i < calls; i++) {
        firstCall(c, statements, "key-" + i, ttl);
      }
      // this transaction's own counts (the cumulative statistics arrive later)
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables"
              + " WHERE relid = '" + table + "'::regclass")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(calls);
        assertThat(rs.getLong(2)).as("HOT updates among the completions").isEqualTo(calls);
      }
      c.commit();
    }
    jdbi.useHandle(h -> h.execute("DROP TABLE " + table));
  }

  private static void firstCall(Connection c, TableStatements statements, String key, Duration ttl) {
    String owner = UUID.randomUUID().toString();
    TableStatements.Claim claim = statements.claim(c, new TableStatements.ClaimRequest(key, "fp", owner, 30_000_000L));
    assertThat(claim.claimed()).isTrue();
    assertThat(statements.complete(c, key, owner, io.idempotent.spi.OutcomeFields.of(
        StoredOutcome.valueJson("{\"receipt\":\"r-" + key + "\",\"cents\":1999}")),
        JdbiIdempotencyStore.micros(ttl))).isEqualTo(1);
  }

  /** The layout of the tables made before the purge column, as the earlier DDL wrote them. */
  private static String earlierLayout(TestDatabase db, String table) {
    String ts = db == TestDatabase.H2 ? "TIMESTAMP(6) WITH TIME ZONE" : "timestamptz";
    String text = db == TestDatabase.H2 ? "VARCHAR(255)" : "text";
    return "CREATE TABLE " + table + " (idempotency_key " + text + (db == TestDatabase.H2 ? "" : " COLLATE \"C\"")
        + " NOT NULL PRIMARY KEY, fingerprint " + text + " NOT NULL, state VARCHAR(16) NOT NULL, owner_token " + text
        + ", taken_over BOOLEAN DEFAULT FALSE NOT NULL, lease_until " + ts + ", expires_at " + ts + " NOT NULL,"
        + " outcome_kind VARCHAR(8), result_json " + (db == TestDatabase.H2 ? "CHARACTER LARGE OBJECT" : "text")
        + ", failure_type VARCHAR(1000), failure_message " + text + ", created_at " + ts + " NOT NULL,"
        + " completed_at " + ts + ")";
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void tableOfTheEarlierLayout_isRefusedWithItsMigration_whichKeepsItsRecords(TestDatabase db) throws Exception {
    String table = "earlier_layout_records";
    Jdbi jdbi = freshTable(db, table);
    jdbi.useHandle(h -> {
      h.execute(earlierLayout(db, table));
      h.execute("CREATE INDEX " + table + "_expires_at_idx ON " + table + " (expires_at)");
      h.execute("INSERT INTO " + table + " (idempotency_key, fingerprint, state, owner_token, taken_over, expires_at,"
          + " outcome_kind, result_json, created_at, completed_at) VALUES ('kept', 'fp', 'COMPLETED', 'o', FALSE,"
          + " CURRENT_TIMESTAMP + INTERVAL '1' HOUR, 'VALUE', '\"r-1\"', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
    });
    String message;
    try {
      JdbiIdempotencyStore.builder(jdbi).table(table).createSchema(true).build();
      throw new AssertionError("a table without purge_after was accepted");
    } catch (IdempotencyConfigurationException e) {
      message = e.getMessage();
    }
    assertThat(message).contains(table).contains("no purge_after column").contains("ADD COLUMN");
    // the message's DDL, run as an administrator would
    String ddl = message.substring(message.indexOf("by: ") + 4);
    try (Connection c = db.pool().getConnection(); Statement s = c.createStatement()) {
      for (String statement : ddl.split("; ")) {
        s.execute(statement);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(table).build();
    assertThat(store.find("kept").orElseThrow().outcome().json()).isEqualTo("\"r-1\"");
    assertThat(store.claim("new", "fp", "owner", LONG).claimed()).isTrue();
    assertThat(store.complete("new", "owner", StoredOutcome.nullValue(), LONG)).isTrue();
    try (Connection c = db.pool().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table)) {
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
    }
    jdbi.useHandle(h -> h.execute("DROP TABLE " + table));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void purgeColumnAdded_butEarlierColumnsStillNotNull_isRefused(TestDatabase db) {
    String table = "half_migrated_records";
    Jdbi jdbi = freshTable(db, table);
    jdbi.useHandle(h -> {
      h.execute(earlierLayout(db, table));
      h.execute("ALTER TABLE " + table + " ADD COLUMN purge_after " + (db == TestDatabase.H2
          ? "TIMESTAMP(6) WITH TIME ZONE" : "timestamptz"));
    });
    assertThatThrownBy(() -> JdbiIdempotencyStore.builder(jdbi).table(table).build())
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("created_at")
        .hasMessageContaining("no longer written");
    jdbi.useHandle(h -> h.execute("DROP TABLE " + table));
  }
}
