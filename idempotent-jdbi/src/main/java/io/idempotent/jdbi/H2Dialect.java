package io.idempotent.jdbi;

import org.jdbi.v3.core.Handle;

/**
 * H2 2.x. The claim is a {@code MERGE … USING} that inserts, or replaces an expired row, and leaves a
 * live row alone; a read of the row then tells whose it is (owner tokens are unique per claim). Two
 * concurrent merges of a new key may both try to insert: the loser gets a duplicate-key error (SQLState
 * class 23), which this dialect alone treats as "repeat the claim". H2 runs in the application's
 * process, so the second statement costs no network round trip.
 */
final class H2Dialect extends Dialect {

  private final String mergeSql;
  private final String readSql;
  private final String purgeSql;

  H2Dialect(TableName table) {
    super(table);
    String t = table.qualified();
    mergeSql = "MERGE INTO " + t + " AS r USING (VALUES (CAST(:key AS VARCHAR(" + StoredKeyEncoding.COLUMN_LENGTH
        + ")))) AS s(k) ON r.idempotency_key = s.k"
        + " WHEN MATCHED AND r.expires_at <= " + now() + " THEN UPDATE SET"
        + " taken_over = (r.state = 'IN_PROGRESS'), fingerprint = :fingerprint, state = 'IN_PROGRESS',"
        + " owner_token = :owner, lease_until = " + deadline("lease") + ", expires_at = " + deadline("lease") + ","
        + " created_at = " + now() + ", completed_at = NULL, outcome_kind = NULL, result_json = NULL,"
        + " failure_type = NULL, failure_message = NULL"
        + " WHEN NOT MATCHED THEN INSERT (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " lease_until, expires_at, created_at)"
        + " VALUES (s.k, :fingerprint, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", "
        + deadline("lease") + ", " + now() + ")";
    readSql = "SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now();
    purgeSql = "DELETE FROM " + t + " WHERE expires_at < " + now() + " FETCH FIRST :max ROWS ONLY";
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
  Claim claim(Handle h, ClaimRequest r) {
    update(h, mergeSql)
        .bind("key", r.storedKey())
        .bind("fingerprint", r.fingerprint())
        .bind("owner", r.owner())
        .bind("lease", r.leaseMicros())
        .execute();
    StoredRow row = query(h, readSql).bind("key", r.storedKey()).map(StoredRow.MAPPER).findOne().orElse(null);
    if (row == null) {
      return null;
    }
    if (row.heldBy(r.owner())) {
      return new Claim(true, row.takenOver(), null);
    }
    return new Claim(false, false, row.toRecord(r.key()));
  }

  @Override
  int purgeExpired(Handle h, int max) {
    return update(h, purgeSql).bind("max", max).execute();
  }
}
