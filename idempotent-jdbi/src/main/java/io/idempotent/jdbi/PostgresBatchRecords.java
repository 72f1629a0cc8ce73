package io.idempotent.jdbi;

import io.idempotent.spi.OutcomeFields;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A batch in the caller's transaction on PostgreSQL, recorded when it completes (docs/MESSAGING.md,
 * Batches): the batch's rows are read at its start, without writing, and at its end its outcomes are
 * inserted as COMPLETED rows, in one statement, in the same transaction as what its items wrote. Each message
 * thus costs one row written, where a claim then a completion cost an insert and an update. The read first
 * takes a transaction-scoped advisory lock on a hash of each key, so two batches with a key in common run one
 * after the other, and the second replays the first's outcome. A key whose row another transaction wrote in
 * between all the same (a call that is not a batch; a snapshot older than that commit, above READ COMMITTED)
 * fails the insert with a duplicate key (SQLState 23505, the transaction aborted): the caller's transaction
 * rolls back, and the batch's redelivery reads that row.
 * Used by {@link TableBatches}; thread-safe.
 */
final class PostgresBatchRecords {

  private final NamedSql readSql;
  private final NamedSql deleteExpiredSql;
  private final NamedSql insertSql;

  PostgresBatchRecords(TableName table, String rowColumns, String now, String ttlDeadline) {
    String t = table.qualified();
    // each key read through the primary key (the lateral subquery, fenced by OFFSET 0, never becomes a join
    // that could scan the table), live or expired: an expired row is replaced when the batch is recorded
    // first, in the same round trip, a transaction-scoped advisory lock on a hash of each key, taken in the
    // hashes' order: a batch with a key in common waits for this one to end, and then its read (a statement
    // of its own, so at READ COMMITTED a new snapshot) finds this one's rows and replays them
    String lock = "hashtextextended(k, " + (long) t.hashCode() + ")";
    readSql = NamedSql.of("SELECT count(pg_advisory_xact_lock(" + lock + ")) FROM (SELECT k FROM"
        + " unnest(CAST(:keys AS text[])) AS b(k) ORDER BY " + lock + ") AS s;"
        + " SELECT l.* FROM unnest(CAST(:keys AS text[])) AS b(k) CROSS JOIN LATERAL"
        + " (SELECT idempotency_key AS k, " + rowColumns + " FROM " + t + " WHERE idempotency_key = b.k OFFSET 0) l");
    // key by key, through the primary key whatever the plan: an expired row is rare (not yet purged)
    deleteExpiredSql = NamedSql.of("DELETE FROM " + t + " WHERE idempotency_key = :key AND expires_at <= " + now);
    // in key order: two batches with keys in common wait for each other's rows in the same order
    insertSql = NamedSql.of("INSERT INTO " + t + " (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " expires_at, purge_after, outcome_kind, result_json, failure_type, failure_message)"
        + " SELECT b.k, b.fp, 'COMPLETED', :owner, FALSE, " + ttlDeadline + ", " + ttlDeadline
        + ", b.kind, b.json, b.ft, b.fm FROM unnest(CAST(:keys AS text[]), CAST(:fingerprints AS text[]),"
        + " CAST(:kinds AS text[]), CAST(:jsons AS text[]), CAST(:failureTypes AS text[]),"
        + " CAST(:failureMessages AS text[])) AS b(k, fp, kind, json, ft, fm) ORDER BY b.k");
  }

  /**
   * Locks {@code keys} until the transaction ends (a lock on a hash of each, waiting for a batch that holds
   * one), then reads their rows, live or not, in one round trip; no row is written or locked.
   *
   * @return one per key, in order; null where the key has no row
   */
  List<@Nullable StoredRow> read(Connection c, String[] keys) {
    Map<String, StoredRow> rows = new HashMap<>();
    try (PreparedStatement ps = readSql.prepare(c)) {
      readSql.setTexts(ps, "keys", keys);
      ps.execute(); // the locks
      if (!ps.getMoreResults()) {
        throw new SQLException("The batch's read returned no result set", "XX000");
      }
      try (ResultSet rs = ps.getResultSet()) {
        while (rs.next()) {
          rows.put(rs.getString(1), StoredRow.read(rs, 2));
        }
      }
    } catch (SQLException e) {
      throw readSql.failure(e);
    }
    List<@Nullable StoredRow> found = new ArrayList<>(keys.length);
    for (String key : keys) {
      found.add(rows.get(key));
    }
    return found;
  }

  /**
   * Deletes the rows of {@code keys} that are still expired, so that the batch's insert replaces them.
   *
   * @return whether every one was: false when another transaction took one over or renewed it since the read
   */
  boolean deleteExpired(Connection c, Collection<String> keys) {
    try (PreparedStatement ps = deleteExpiredSql.prepare(c)) {
      for (String key : keys) {
        deleteExpiredSql.set(ps, "key", key);
        if (ps.executeUpdate() != 1) {
          return false;
        }
      }
      return true;
    } catch (SQLException e) {
      throw deleteExpiredSql.failure(e);
    }
  }

  /**
   * Inserts the batch's outcomes as COMPLETED rows held by {@code owner}, kept for {@code ttlMicros}.
   *
   * @return false when a row of one of the keys is there (another transaction wrote it since the read; SQLState
   *     23505, or 40001 under SERIALIZABLE): the statement failed, and with it the caller's transaction, which
   *     must roll back
   */
  boolean insertCompleted(Connection c, String[] keys, String[] fingerprints, String owner,
      List<OutcomeFields> outcomes, long ttlMicros) {
    try (PreparedStatement ps = insertSql.prepare(c)) {
      insertSql.setTexts(ps, "keys", keys);
      insertSql.setTexts(ps, "fingerprints", fingerprints);
      bindOutcomes(insertSql, ps, outcomes);
      insertSql.set(ps, "owner", owner);
      insertSql.set(ps, "ttl", ttlMicros);
      ps.executeUpdate();
      return true;
    } catch (SQLException e) {
      // a duplicate key; under SERIALIZABLE, a serialization failure: the row was not in the batch's snapshot
      if ("23505".equals(e.getSQLState()) || "40001".equals(e.getSQLState())) {
        return false;
      }
      throw insertSql.failure(e);
    }
  }

  /**
   * Binds each field of {@code outcomes} as a text array, element {@code i} the field of outcome {@code i}:
   * {@code :kinds}, {@code :jsons}, {@code :failureTypes} and {@code :failureMessages}.
   */
  static void bindOutcomes(NamedSql sql, PreparedStatement ps, List<OutcomeFields> outcomes) throws SQLException {
    int n = outcomes.size();
    String[] kinds = new String[n];
    String[] jsons = new String[n];
    String[] failureTypes = new String[n];
    String[] failureMessages = new String[n];
    for (int i = 0; i < n; i++) {
      OutcomeFields o = outcomes.get(i);
      kinds[i] = o.kind();
      jsons[i] = o.json();
      failureTypes[i] = o.failureType();
      failureMessages[i] = o.failureMessage();
    }
    sql.setTexts(ps, "kinds", kinds);
    sql.setTexts(ps, "jsons", jsons);
    sql.setTexts(ps, "failureTypes", failureTypes);
    sql.setTexts(ps, "failureMessages", failureMessages);
  }
}
