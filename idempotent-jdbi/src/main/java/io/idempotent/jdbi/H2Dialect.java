package io.idempotent.jdbi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;


/**
 * H2 2.x. The claim first reads the key: a live row (a replay, a duplicate in progress) is the answer, and
 * nothing is written. Otherwise a {@code MERGE … USING} inserts, or replaces an expired row, and leaves a
 * live row alone (one may have appeared since the read); a second read then tells whose the row is (owner
 * tokens are unique per claim). Two concurrent merges of a new key may both try to insert: the loser
 * gets a duplicate-key error (SQLState class 23), which this dialect alone treats as "repeat the claim".
 * H2 runs in the application's process, so the extra statements cost no network round trip.
 */
final class H2Dialect extends Dialect {

  private final NamedSql mergeSql;
  private final NamedSql readSql;
  private final NamedSql purgeSql;

  H2Dialect(TableName table) {
    super(table);
    String t = table.qualified();
    mergeSql = NamedSql.of("MERGE INTO " + t + " AS r USING (VALUES (CAST(:key AS VARCHAR("
        + JdbiIdempotencyStore.MAX_KEY_LENGTH + ")))) AS s(k) ON r.idempotency_key = s.k"
        + " WHEN MATCHED AND r.expires_at <= " + now() + " THEN UPDATE SET"
        + " taken_over = (r.state = 'IN_PROGRESS'), fingerprint = :fingerprint, state = 'IN_PROGRESS',"
        + " owner_token = :owner, lease_until = " + deadline("lease") + ", expires_at = " + deadline("lease") + ","
        + " created_at = " + now() + ", completed_at = NULL, outcome_kind = NULL, result_json = NULL,"
        + " failure_type = NULL, failure_message = NULL"
        + " WHEN NOT MATCHED THEN INSERT (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " lease_until, expires_at, created_at)"
        + " VALUES (s.k, :fingerprint, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", "
        + deadline("lease") + ", " + now() + ")");
    readSql = NamedSql.of("SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now());
    purgeSql = NamedSql.of("DELETE FROM " + t + " WHERE expires_at < " + now() + " FETCH FIRST :max ROWS ONLY");
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
  boolean isRetryable(String sqlState) {
    // 23505: a concurrent merge inserted the same new key first; HYT00: lock wait timed out
    return super.isRetryable(sqlState) || "23505".equals(sqlState) || "HYT00".equals(sqlState);
  }

  @Override
  Claim claim(Connection c, ClaimRequest r) {
    StoredRow live = readRow(c, readSql, r.storedKey());
    if (live != null) {
      return claimFrom(live, r); // a replay or a duplicate: one read, no write
    }
    try (PreparedStatement ps = mergeSql.prepare(c)) {
      bindClaim(mergeSql, ps, r);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw mergeSql.failure(e);
    }
    return claimFrom(readRow(c, readSql, r.storedKey()), r);
  }

  @Override
  int purgeExpired(Connection c, int max) {
    return updateWithMax(c, purgeSql, max);
  }
}
