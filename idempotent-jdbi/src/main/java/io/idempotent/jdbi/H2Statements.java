package io.idempotent.jdbi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;


/**
 * H2 2.x. The claim first reads the key: a live row (a replay, a duplicate in progress) is the answer, and
 * nothing is written. Otherwise a plain {@code INSERT} claims a key the table does not hold yet, which a
 * fresh key's first call is: two statements. When the key is there after all (an expired row, or a
 * concurrent insert of the same new key, SQLState 23505), a {@code MERGE … USING} replaces an expired row
 * and leaves a live one alone, and a second read tells whose the row is (owner tokens are unique per
 * claim). Two concurrent merges of a new key may both try to insert: the loser gets a duplicate-key error,
 * which this dialect alone treats as "repeat the claim". H2 runs in the application's process, so the
 * extra statements cost no network round trip.
 */
final class H2Statements extends TableStatements {

  private final NamedSql insertSql;
  private final NamedSql mergeSql;
  private final NamedSql readSql;
  private final NamedSql purgeSql;

  H2Statements(TableName table) {
    super(table, true);
    String t = table.qualified();
    insertSql = NamedSql.of("INSERT INTO " + t + " (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " expires_at, purge_after) VALUES (:key, :fingerprint, 'IN_PROGRESS', :owner, FALSE, "
        + deadline("lease") + ", " + deadline("purge") + ")");
    mergeSql = NamedSql.of("MERGE INTO " + t + " AS r USING (VALUES (CAST(:key AS VARCHAR("
        + KEY_COLUMN_CHARS + ")))) AS s(k) ON r.idempotency_key = s.k"
        + " WHEN MATCHED AND r.expires_at <= " + now() + " THEN UPDATE SET"
        + " taken_over = (r.state = 'IN_PROGRESS'), fingerprint = :fingerprint, state = 'IN_PROGRESS',"
        + " owner_token = :owner, expires_at = " + deadline("lease") + ", purge_after = " + deadline("purge") + ","
        + " outcome_kind = NULL, result_json = NULL, failure_type = NULL, failure_message = NULL"
        + " WHEN NOT MATCHED THEN INSERT (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " expires_at, purge_after)"
        + " VALUES (s.k, :fingerprint, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", "
        + deadline("purge") + ")");
    readSql = NamedSql.of("SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now());
    // purge_after >= expires_at on every row; expires_at is checked all the same (a row edited by hand)
    purgeSql = NamedSql.of("DELETE FROM " + t + " WHERE purge_after < " + now() + " AND expires_at < " + now()
        + " FETCH FIRST :max ROWS ONLY");
  }

  @Override
  String now() {
    return "CURRENT_TIMESTAMP";
  }

  @Override
  String deadline(String param) {
    return "DATEADD(MICROSECOND, :" + param + ", CURRENT_TIMESTAMP)";
  }

  @Override
  String remainingMicros() {
    return "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";
  }

  @Override
  boolean isRetryable(@Nullable String sqlState) {
    // 23505: a concurrent merge inserted the same new key first; HYT00: lock wait timed out
    return super.isRetryable(sqlState) || "23505".equals(sqlState) || "HYT00".equals(sqlState);
  }

  @Override
  @Nullable Claim claim(Connection c, ClaimRequest r) {
    Claim found = liveClaim(c, r);
    return found != null ? found : claimAbsent(c, r);
  }

  /** The answer a live row of the key gives (a replay, a duplicate in progress): one read, no write; or null. */
  @Nullable Claim liveClaim(Connection c, ClaimRequest r) {
    StoredRow live = readRow(c, readSql, r.key());
    return live == null ? null : claimFrom(live, r);
  }

  /**
   * The claim of a key that {@link #liveClaim} found no live row of: an insert, or when the key is there
   * after all, the merge and a second read.
   */
  @Nullable Claim claimAbsent(Connection c, ClaimRequest r) {
    long purgeMicros = purgeMicros(r.leaseMicros());
    try (PreparedStatement ps = insertSql.prepare(c)) {
      bindClaim(insertSql, ps, r);
      insertSql.set(ps, "purge", purgeMicros);
      ps.executeUpdate();
      return new Claim(true, false, null); // a key the table did not hold: the row is this caller's
    } catch (SQLException e) {
      if (!"23505".equals(e.getSQLState())) {
        throw insertSql.failure(e);
      }
      // the key is there: an expired row, or a row a concurrent claim inserted since the read
    }
    try (PreparedStatement ps = mergeSql.prepare(c)) {
      bindClaim(mergeSql, ps, r);
      mergeSql.set(ps, "purge", purgeMicros);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw mergeSql.failure(e);
    }
    return claimFrom(readRow(c, readSql, r.key()), r);
  }

  @Override
  int purgeExpired(Connection c, int max) {
    return updateWithMax(c, purgeSql, max);
  }

  @Override
  List<String> migration() {
    String t = table.qualified();
    return List.of("ALTER TABLE " + t + " ADD COLUMN IF NOT EXISTS purge_after TIMESTAMP(6) WITH TIME ZONE",
        "UPDATE " + t + " SET purge_after = expires_at",
        "ALTER TABLE " + t + " ALTER COLUMN purge_after SET NOT NULL",
        "ALTER TABLE " + t + " DROP COLUMN IF EXISTS lease_until",
        "ALTER TABLE " + t + " DROP COLUMN IF EXISTS created_at",
        "ALTER TABLE " + t + " DROP COLUMN IF EXISTS completed_at",
        "CREATE INDEX IF NOT EXISTS " + table.purgeIndex() + " ON " + t + " (purge_after)",
        "DROP INDEX IF EXISTS " + table.schemaPrefix() + table.expiryIndex());
  }
}
