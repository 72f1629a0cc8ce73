package io.idempotent.jdbi;

import io.idempotent.spi.OutcomeFields;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL. The claim is one statement: an {@code INSERT … ON CONFLICT DO UPDATE … WHERE <expired>}
 * whose {@code RETURNING} says whether this caller now holds the key, joined with a read of the live row
 * when it does not. No duplicate-key error is ever raised, so nothing aborts a transaction.
 *
 * <p>Under READ COMMITTED, when a concurrent transaction inserted or renewed the row after this
 * statement's snapshot was taken, {@code ON CONFLICT} sees that row (and leaves it alone) while the
 * read branch, bound to the older snapshot, does not: the statement then returns nothing, and the
 * claim is repeated with a fresh snapshot. That happens only in a race on the same key.
 *
 * <p>With relaxed claim durability, the claim statement sets {@code synchronous_commit = off} for its
 * own transaction ({@code set_config(…, true)}): the claim's commit does not wait for its WAL flush.
 * Every other statement, completion included, commits as the session is configured.
 */
final class PostgresStatements extends TableStatements {

  private final NamedSql claimSql;
  private final NamedSql purgeSql;
  private final NamedSql claimAllSql;
  private final NamedSql completeAllSql;
  private final PostgresBatchRecords batchRecords;
  /** Looked up from the first batch completion's statement; null until then. */
  private volatile @Nullable PrepareThreshold prepareThreshold;

  PostgresStatements(TableName table, boolean relaxedClaim) {
    super(table, true);
    String t = table.qualified();
    // A live row is looked for first (NOT EXISTS), so that a replay inserts nothing: an INSERT that
    // reaches ON CONFLICT locks the conflicting row even when its WHERE leaves it alone, and that lock
    // gives the statement a transaction id, whose commit then waits for a WAL flush. Read-only, a
    // replay commits nothing and costs no fsync.
    claimSql = NamedSql.of(claimStatement("",
        // relaxed: asynchronous commit for this statement's own transaction only (is_local = true);
        // evaluated only when a row is about to be written
        relaxedClaim ? " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed" : "", "", ""));
    // A batch's claim: the live rows of its keys, read key by key through the primary key (the lateral
    // subquery, fenced by OFFSET 0, is never turned into a join that could scan the table), then the same
    // insert as a single claim's for every other key, in key order (two batches with keys in common lock them
    // in the same order, so neither waits for the other in a cycle). A key with no row back was hidden by a
    // concurrent commit: it is claimed again on its own.
    claimAllSql = NamedSql.of("WITH batch AS (SELECT b.k, b.fp FROM unnest(CAST(:keys AS text[]),"
        + " CAST(:fingerprints AS text[])) AS b(k, fp)),"
        + " live AS (SELECT l.* FROM batch b CROSS JOIN LATERAL (SELECT idempotency_key AS k, " + rowColumns
        + " FROM " + t + " WHERE idempotency_key = b.k AND expires_at > " + now() + " OFFSET 0) l),"
        + " claimed AS (INSERT INTO " + t + " AS r (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " expires_at, purge_after)"
        + " SELECT b.k, b.fp, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", " + deadline("purge")
        + " FROM batch b WHERE b.k NOT IN (SELECT k FROM live) ORDER BY b.k"
        + takeOverExpired()
        + " RETURNING r.idempotency_key AS k, TRUE AS claimed, " + rowColumns + ")"
        + " SELECT * FROM claimed"
        + " UNION ALL"
        + " SELECT k, FALSE, " + StoredRow.COLUMNS + ", " + StoredRow.EXPIRES_IN + " FROM live");
    // A batch's outcomes: one fenced update of the batch's rows, found through the primary key (= ANY), each
    // given the outcome at its key's place in the arrays
    String at = "[array_position(CAST(:keys AS text[]), idempotency_key)]";
    completeAllSql = NamedSql.of("UPDATE " + t + " SET " + completedColumns()
        + ", outcome_kind = (CAST(:kinds AS text[]))" + at + ", result_json = (CAST(:jsons AS text[]))" + at
        + ", failure_type = (CAST(:failureTypes AS text[]))" + at
        + ", failure_message = (CAST(:failureMessages AS text[]))" + at
        + " WHERE idempotency_key = ANY(CAST(:keys AS text[])) AND state = 'IN_PROGRESS' AND owner_token = :owner"
        + " RETURNING idempotency_key");
    batchRecords = new PostgresBatchRecords(table, rowColumns, now(), deadline("ttl"));
    // SKIP LOCKED: never wait for (or hold up) a claim that is taking over an expired row right now.
    // purge_after >= expires_at on every row, so the index range holds expired rows only; expires_at is
    // checked again all the same, so that a row edited by hand is never deleted while it is live
    purgeSql = NamedSql.of("DELETE FROM " + t + " WHERE idempotency_key IN (SELECT idempotency_key FROM " + t
        + " WHERE purge_after < " + now() + " AND expires_at < " + now()
        + " ORDER BY purge_after LIMIT :max FOR UPDATE SKIP LOCKED)"
        + " AND expires_at < " + now());
  }

  /**
   * The claim: an insert of the key unless a live row is there, taking over an expired row, that returns
   * its row with {@code claimed} TRUE; else the live row with {@code claimed} FALSE.
   *
   * @param with common table expressions before {@code claimed}, each followed by a comma, or empty
   * @param insertFrom the {@code FROM} of the insert's {@code SELECT}, or empty
   * @param insertsOnlyIf more conditions of the insert ({@code " AND …"}), or empty
   * @param moreAnswers a last {@code UNION ALL} branch with {@code claimed} NULL, or empty
   */
  final String claimStatement(String with, String insertFrom, String insertsOnlyIf, String moreAnswers) {
    String t = table.qualified();
    return "WITH " + with + "claimed AS ("
        + " INSERT INTO " + t + " AS r (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " expires_at, purge_after)"
        + " SELECT :key, :fingerprint, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", "
        + deadline("purge") + insertFrom
        + " WHERE NOT EXISTS (" + liveRow() + ")" + insertsOnlyIf
        + takeOverExpired()
        + " RETURNING TRUE AS claimed, " + rowColumns
        + ")"
        + " SELECT * FROM claimed"
        + " UNION ALL"
        + " SELECT FALSE AS claimed, " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now()
        + " AND NOT EXISTS (SELECT 1 FROM claimed)"
        + moreAnswers;
  }

  /** The conflict clause of a claim's insert (the table aliased {@code r}): an expired row is taken over. */
  private String takeOverExpired() {
    return " ON CONFLICT (idempotency_key) DO UPDATE SET"
        + " fingerprint = EXCLUDED.fingerprint, state = 'IN_PROGRESS', owner_token = EXCLUDED.owner_token,"
        + " taken_over = (r.state = 'IN_PROGRESS'), expires_at = EXCLUDED.expires_at,"
        + " purge_after = EXCLUDED.purge_after, outcome_kind = NULL, result_json = NULL, failure_type = NULL,"
        + " failure_message = NULL"
        + " WHERE r.expires_at <= " + now();
  }

  /** A query of the key's live row, for {@code EXISTS}. */
  final String liveRow() {
    return "SELECT 1 FROM " + table.qualified() + " WHERE idempotency_key = :key AND expires_at > " + now();
  }

  /**
   * Binds the claim's parameters to {@code ps}, a prepared claim statement of {@link #claimStatement}, and
   * runs it: null when no row came back (a concurrent commit hid the row from the statement's snapshot:
   * repeat), {@link #BUSY} for {@code claimed} NULL.
   */
  final @Nullable Claim runClaim(NamedSql sql, PreparedStatement ps, ClaimRequest r) throws SQLException {
    bindClaim(sql, ps, r);
    sql.set(ps, "purge", purgeMicros(r.leaseMicros()));
    try (ResultSet rs = resultOf(ps)) {
      if (!rs.next()) {
        return null;
      }
      boolean claimed = rs.getBoolean(1);
      if (rs.wasNull()) {
        return BUSY;
      }
      StoredRow row = StoredRow.read(rs, 2);
      return claimed ? new Claim(true, row.takenOver(), null) : new Claim(false, false, row.toRecord(r.key()));
    }
  }

  /**
   * Runs {@code ps} and returns its result set: that of its only statement, or, for statements that set up
   * a transaction first ({@code SET …; WITH …}, one round trip), that of the one statement giving rows.
   */
  private static ResultSet resultOf(PreparedStatement ps) throws SQLException {
    boolean rows = ps.execute();
    while (!rows) {
      if (ps.getUpdateCount() == -1) { // no result left
        throw new SQLException("The claim statement returned no result set", "XX000");
      }
      rows = ps.getMoreResults(); // past a SET's count
    }
    return ps.getResultSet();
  }

  @Override
  String now() {
    // the time the statement started, also inside a long transaction (joined mode)
    return "statement_timestamp()";
  }

  @Override
  String deadline(String param) {
    return "(statement_timestamp() + :" + param + " * INTERVAL '1 microsecond')";
  }

  @Override
  String remainingMicros() {
    // EPOCH of an interval is its length in seconds (days and months included), with microseconds
    return "CAST(FLOOR(EXTRACT(EPOCH FROM (expires_at - statement_timestamp())) * 1000000) AS BIGINT)";
  }

  @Override
  @Nullable Claim claim(Connection c, ClaimRequest r) {
    try (PreparedStatement ps = claimSql.prepare(c)) {
      return runClaim(claimSql, ps, r);
    } catch (SQLException e) {
      throw claimSql.failure(e);
    }
  }

  @Override
  List<@Nullable Claim> claimAll(Connection c, List<ClaimRequest> requests) {
    int n = requests.size();
    String[] keys = new String[n];
    String[] fingerprints = new String[n];
    for (int i = 0; i < n; i++) {
      keys[i] = requests.get(i).key();
      fingerprints[i] = requests.get(i).fingerprint();
    }
    ClaimRequest first = requests.get(0);
    Map<String, Claim> found = new HashMap<>();
    try (PreparedStatement ps = claimAllSql.prepare(c)) {
      claimAllSql.setTexts(ps, "keys", keys);
      claimAllSql.setTexts(ps, "fingerprints", fingerprints);
      claimAllSql.set(ps, "owner", first.owner());
      claimAllSql.set(ps, "lease", first.leaseMicros());
      claimAllSql.set(ps, "purge", purgeMicros(first.leaseMicros()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          StoredRow row = StoredRow.read(rs, 3);
          found.put(key, rs.getBoolean(2) ? new Claim(true, row.takenOver(), null)
              : new Claim(false, false, row.toRecord(key)));
        }
      }
    } catch (SQLException e) {
      throw claimAllSql.failure(e);
    }
    List<@Nullable Claim> claims = new ArrayList<>(n);
    for (String key : keys) {
      claims.add(found.get(key));
    }
    return claims;
  }

  @Override
  boolean[] completeAll(Connection c, List<String> keys, String owner, List<OutcomeFields> outcomes, long ttlMicros) {
    Set<String> completed = new HashSet<>();
    try (PreparedStatement ps = planPerExecution(completeAllSql.prepare(c))) {
      completeAllSql.setTexts(ps, "keys", keys.toArray(new String[0]));
      PostgresBatchRecords.bindOutcomes(completeAllSql, ps, outcomes);
      bindCompletionTimes(completeAllSql, ps, owner, ttlMicros);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          completed.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw completeAllSql.failure(e);
    }
    boolean[] done = new boolean[keys.size()];
    for (int i = 0; i < done.length; i++) {
      done[i] = completed.contains(keys.get(i));
    }
    return done;
  }

  @Override
  @Nullable PostgresBatchRecords batchRecords() {
    return batchRecords;
  }

  /**
   * Keeps the driver from preparing {@code ps} on the server, so that each execution is planned for its own
   * keys and the table as it is then: for the batch's completion, an update of the rows whose key is in an
   * array. A generic plan, made once after a few executions, knows neither the array's length nor, on a new
   * table, its size: made early, it scans the whole table, and it is kept while the table grows until the next
   * ANALYZE. Drivers other than PostgreSQL's are left alone.
   */
  private PreparedStatement planPerExecution(PreparedStatement ps) throws SQLException {
    PrepareThreshold setting = prepareThreshold;
    if (setting == null) {
      setting = PrepareThreshold.of(ps);
      prepareThreshold = setting; // the same for every statement of the driver: looked up once
    }
    setting.planPerExecution(ps);
    return ps;
  }

  /** PostgreSQL's driver's {@code PGStatement.setPrepareThreshold}, or nothing for another driver. */
  private record PrepareThreshold(@Nullable Class<?> statementType, @Nullable Method setter) {

    static PrepareThreshold of(PreparedStatement ps) {
      try {
        Class<?> type = Class.forName("org.postgresql.PGStatement", false, ps.getClass().getClassLoader());
        return new PrepareThreshold(type, type.getMethod("setPrepareThreshold", int.class));
      } catch (ReflectiveOperationException | LinkageError e) {
        return new PrepareThreshold(null, null); // another driver: its statements keep its own planning
      }
    }

    void planPerExecution(PreparedStatement ps) throws SQLException {
      if (statementType != null && setter != null && ps.isWrapperFor(statementType)) {
        try {
          setter.invoke(ps.unwrap(statementType), 0);
        } catch (ReflectiveOperationException e) {
          // a driver without the setting: the statement keeps the driver's own planning
        }
      }
    }
  }

  @Override
  int purgeExpired(Connection c, int max) {
    return updateWithMax(c, purgeSql, max);
  }

  @Override
  List<String> migration() {
    String t = table.qualified();
    return List.of("ALTER TABLE " + t + " ADD COLUMN IF NOT EXISTS purge_after timestamptz",
        "UPDATE " + t + " SET purge_after = expires_at",
        "ALTER TABLE " + t + " ALTER COLUMN purge_after SET NOT NULL, DROP COLUMN IF EXISTS lease_until,"
            + " DROP COLUMN IF EXISTS created_at, DROP COLUMN IF EXISTS completed_at, SET (fillfactor = 70)",
        "CREATE INDEX IF NOT EXISTS " + table.purgeIndex() + " ON " + t + " (purge_after)",
        "DROP INDEX IF EXISTS " + table.schemaPrefix() + table.expiryIndex());
  }

  @Override
  @Nullable String keyColumnProblem(Connection c) throws SQLException {
    String[] sn = schemaAndName();
    String name = sn[0] == null ? sn[1] : sn[0] + "." + sn[1];
    try (PreparedStatement ps = c.prepareStatement("SELECT format_type(a.atttypid, a.atttypmod),"
        // read through to_jsonb: the column exists from PostgreSQL 12, and every collation before was deterministic
        + " coalesce((to_jsonb(co) ->> 'collisdeterministic')::boolean, true), co.collname,"
        + " EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary"
        + " AND i.indnatts = 1 AND i.indkey[0] = a.attnum)"
        + " FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation"
        + " WHERE a.attrelid = to_regclass(?) AND a.attname = 'idempotency_key' AND NOT a.attisdropped")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null; // no such table
        }
        String type = rs.getString(1);
        boolean deterministic = rs.getBoolean(2);
        String collation = rs.getString(3);
        boolean primary = rs.getBoolean(4);
        boolean typeOk = "text".equals(type) || "character varying".equals(type)
            || (type.startsWith("character varying(") && Integer.parseInt(type.substring(18, type.length() - 1))
                >= KEY_COLUMN_CHARS);
        if (typeOk && deterministic && primary) {
          return null;
        }
        String t = table.qualified();
        return "its idempotency_key column is " + type + " COLLATE \"" + collation + "\""
            + (deterministic ? "" : " (nondeterministic: distinct keys would compare equal)")
            + (primary ? "" : " and not the table's whole primary key")
            + "; it must be text COLLATE \"C\" and the primary key. Fix: ALTER TABLE " + t
            + " ALTER COLUMN idempotency_key TYPE text COLLATE \"C\""
            + (primary ? "" : "; ALTER TABLE " + t + " ADD PRIMARY KEY (idempotency_key) (after dropping any other"
            + " primary key)");
      }
    }
  }
}
