package io.idempotent.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.idempotent.internal.Fingerprints;
import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.StoreKeyRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The SQL floor: the least code that gives the guarantee of {@code @Idempotent} on the table store,
 * with no idempotency library. Same key string, same fingerprint, and the very statements the store
 * issues for the dialect (written out here for the benchmark table), each on a connection borrowed from
 * the same HikariCP pool for that statement alone, in auto-commit: on PostgreSQL one claim statement
 * and one fenced completion; on H2 a read, which answers a replay alone, else an INSERT (a MERGE and a
 * read when the key is there but expired) and the completion. The result is kept as JSON.
 * Leaves out what a careful hand-written version could skip for these keys and results: key escaping
 * (keys here are plain ASCII), lease renewal, final failures, events. Thread-safe.
 */
final class HandWrittenJdbc {

  private static final long LEASE_MICROS = 30_000_000L;
  private static final long TTL_MICROS = 86_400_000_000L;
  private static final int MAX_KEY = 255;
  private static final StoreKeyRules KEY_RULES =
      StoreKeyRules.any().maxChars(MAX_KEY).withoutNul().withoutLoneSurrogates();
  private static final String COLUMNS =
      "state, fingerprint, owner_token, taken_over, outcome_kind, result_json, failure_type, failure_message";

  private final DataSource dataSource;
  private final boolean postgres;
  private final String claimSql;
  /** H2: the claim of a key the table already holds (expired, or inserted since the read). */
  private final String mergeSql;
  private final String readSql;
  private final String completeSql;
  private final ObjectWriter writer;
  private final ObjectReader reader;
  private final AtomicLong owners = new AtomicLong();

  HandWrittenJdbc(DataSource dataSource, BenchDatabase db, String table) {
    this.dataSource = dataSource;
    this.postgres = db == BenchDatabase.postgres;
    String now = postgres ? "statement_timestamp()" : "CURRENT_TIMESTAMP";
    String lease = postgres ? "(statement_timestamp() + ? * INTERVAL '1 microsecond')"
        : "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
    // purge_after: the lease plus the TTL to come, as the store guesses it once it has seen one completion
    String purge = lease;
    if (postgres) {
      claimSql = "WITH claimed AS (INSERT INTO " + table + " AS r (idempotency_key, fingerprint, state,"
          + " owner_token, taken_over, expires_at, purge_after)"
          + " SELECT ?, ?, 'IN_PROGRESS', ?, FALSE, " + lease + ", " + purge
          + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE idempotency_key = ? AND expires_at > " + now + ")"
          + " ON CONFLICT (idempotency_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'IN_PROGRESS',"
          + " owner_token = EXCLUDED.owner_token, taken_over = (r.state = 'IN_PROGRESS'),"
          + " expires_at = EXCLUDED.expires_at, purge_after = EXCLUDED.purge_after,"
          + " outcome_kind = NULL, result_json = NULL, failure_type = NULL, failure_message = NULL"
          + " WHERE r.expires_at <= " + now + " RETURNING TRUE AS claimed, " + COLUMNS + ")"
          + " SELECT * FROM claimed UNION ALL SELECT FALSE AS claimed, " + COLUMNS + " FROM " + table
          + " WHERE idempotency_key = ? AND expires_at > " + now + " AND NOT EXISTS (SELECT 1 FROM claimed)";
      mergeSql = null;
    } else {
      claimSql = "INSERT INTO " + table + " (idempotency_key, fingerprint, state, owner_token, taken_over,"
          + " expires_at, purge_after) VALUES (?, ?, 'IN_PROGRESS', ?, FALSE, " + lease + ", " + purge + ")";
      mergeSql = "MERGE INTO " + table + " AS r USING (VALUES (CAST(? AS VARCHAR(" + MAX_KEY + ")))) AS s(k)"
          + " ON r.idempotency_key = s.k WHEN MATCHED AND r.expires_at <= " + now + " THEN UPDATE SET"
          + " taken_over = (r.state = 'IN_PROGRESS'), fingerprint = ?, state = 'IN_PROGRESS', owner_token = ?,"
          + " expires_at = " + lease + ", purge_after = " + purge + ","
          + " outcome_kind = NULL, result_json = NULL, failure_type = NULL, failure_message = NULL"
          + " WHEN NOT MATCHED THEN INSERT (idempotency_key, fingerprint, state, owner_token, taken_over,"
          + " expires_at, purge_after) VALUES (s.k, ?, 'IN_PROGRESS', ?, FALSE, " + lease + ", " + purge + ")";
    }
    readSql = "SELECT " + COLUMNS + " FROM " + table + " WHERE idempotency_key = ? AND expires_at > " + now;
    String expiry = postgres ? "(statement_timestamp() + ? * INTERVAL '1 microsecond')"
        : "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
    completeSql = "UPDATE " + table + " SET state = 'COMPLETED', expires_at = " + expiry
        + ", purge_after = CASE WHEN purge_after >= " + expiry + " AND purge_after <= " + expiry
        + " THEN purge_after ELSE " + expiry + " END"
        + ", outcome_kind = ?, result_json = ?, failure_type = ?, failure_message = ?"
        + " WHERE idempotency_key = ? AND state = 'IN_PROGRESS' AND owner_token = ?";
    ObjectMapper mapper = new ObjectMapper();
    this.writer = mapper.writerFor(Receipt.class);
    this.reader = mapper.readerFor(Receipt.class);
  }

  /** A row as the claim found it. */
  private record Row(boolean claimed, String state, String fingerprint, String kind, String json) {}

  Receipt call(String name, String orderId, long cents, Supplier<Receipt> body) {
    String key = StoredKeys.compose(name, null, orderId, KEY_RULES);
    String fingerprint = Fingerprints.of(new Object[] {orderId, cents});
    String owner = "hw." + Long.toString(owners.incrementAndGet(), 36);
    try {
      Row row = claim(key, fingerprint, owner);
      if (!row.claimed) {
        if (!row.fingerprint.equals(fingerprint)) {
          throw new IllegalStateException("key reused with other arguments");
        }
        if (!"COMPLETED".equals(row.state)) {
          throw new IllegalStateException("in progress");
        }
        return row.json == null ? null : reader.readValue(row.json);
      }
      Receipt result = body.get();
      String json = writer.writeValueAsString(result);
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(completeSql)) {
        ps.setLong(1, TTL_MICROS);
        ps.setLong(2, TTL_MICROS);
        ps.setLong(3, 2 * TTL_MICROS);
        ps.setLong(4, TTL_MICROS);
        ps.setString(5, "VALUE");
        ps.setString(6, json);
        ps.setString(7, null);
        ps.setString(8, null);
        ps.setString(9, key);
        ps.setString(10, owner);
        if (ps.executeUpdate() != 1) {
          throw new IllegalStateException("lease lost");
        }
      }
      return result;
    } catch (SQLException | java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Row claim(String key, String fingerprint, String owner) throws SQLException {
    while (true) {
      Row row = postgres ? claimPostgres(key, fingerprint, owner) : claimH2(key, fingerprint, owner);
      if (row != null) {
        return row; // null: a concurrent change of the same key hid the row; claim again
      }
    }
  }

  private Row claimPostgres(String key, String fingerprint, String owner) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(claimSql)) {
      ps.setString(1, key);
      ps.setString(2, fingerprint);
      ps.setString(3, owner);
      ps.setLong(4, LEASE_MICROS);
      ps.setLong(5, LEASE_MICROS + TTL_MICROS);
      ps.setString(6, key);
      ps.setString(7, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? row(rs, rs.getBoolean("claimed")) : null;
      }
    }
  }

  private Row claimH2(String key, String fingerprint, String owner) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Row live = readH2(c, key, owner);
      if (live != null) {
        return live; // a replay or a duplicate: one read, no write
      }
      try (PreparedStatement ps = c.prepareStatement(claimSql)) {
        ps.setString(1, key);
        ps.setString(2, fingerprint);
        ps.setString(3, owner);
        ps.setLong(4, LEASE_MICROS);
        ps.setLong(5, LEASE_MICROS + TTL_MICROS);
        ps.executeUpdate();
        return new Row(true, "IN_PROGRESS", fingerprint, null, null); // a new key: the row is ours
      } catch (SQLException e) {
        if (!"23505".equals(e.getSQLState())) {
          throw e;
        }
      }
      try (PreparedStatement ps = c.prepareStatement(mergeSql)) {
        ps.setString(1, key);
        ps.setString(2, fingerprint);
        ps.setString(3, owner);
        ps.setLong(4, LEASE_MICROS);
        ps.setLong(5, LEASE_MICROS + TTL_MICROS);
        ps.setString(6, fingerprint);
        ps.setString(7, owner);
        ps.setLong(8, LEASE_MICROS);
        ps.setLong(9, LEASE_MICROS + TTL_MICROS);
        ps.executeUpdate();
      } catch (SQLException e) {
        if ("23505".equals(e.getSQLState())) {
          return null; // a concurrent merge inserted the same new key first
        }
        throw e;
      }
      return readH2(c, key, owner);
    }
  }

  private Row readH2(Connection c, String key, String owner) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(readSql)) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        boolean mine = "IN_PROGRESS".equals(rs.getString("state")) && owner.equals(rs.getString("owner_token"));
        return row(rs, mine);
      }
    }
  }

  private static Row row(ResultSet rs, boolean claimed) throws SQLException {
    return new Row(claimed, rs.getString("state"), rs.getString("fingerprint"), rs.getString("outcome_kind"),
        rs.getString("result_json"));
  }
}
