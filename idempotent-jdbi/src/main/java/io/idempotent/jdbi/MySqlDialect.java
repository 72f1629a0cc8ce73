package io.idempotent.jdbi;

import org.jdbi.v3.core.Handle;

/**
 * MariaDB and MySQL. The claim is an {@code INSERT … ON DUPLICATE KEY UPDATE} whose every assignment is
 * conditional on the old row having expired, so a live row is left exactly as it was. MariaDB (10.5+)
 * returns the resulting row from the same statement ({@code RETURNING}); MySQL has no {@code RETURNING}
 * and reads the row with a second statement. Whose the row is tells whether the claim succeeded: owner
 * tokens are unique per claim.
 *
 * <p>MySQL applies the assignments left to right and later ones see the values set by earlier ones, so
 * {@code taken_over} (which reads the old state) comes first and {@code expires_at} (which every
 * condition reads) comes last. Times are UTC ({@code UTC_TIMESTAMP(6)} in {@code DATETIME(6)}
 * columns), independent of each session's time zone.
 */
final class MySqlDialect extends Dialect {

  private final boolean returning;
  private final String claimSql;
  private final String readSql;
  private final String purgeSql;

  MySqlDialect(TableName table, boolean returning) {
    super(table);
    this.returning = returning;
    String t = table.qualified();
    String expired = "expires_at <= " + now();
    claimSql = "INSERT INTO " + t + " (idempotency_key, fingerprint, state, owner_token, taken_over,"
        + " lease_until, expires_at, created_at)"
        + " VALUES (:key, :fingerprint, 'IN_PROGRESS', :owner, FALSE, " + deadline("lease") + ", "
        + deadline("lease") + ", " + now() + ")"
        + " ON DUPLICATE KEY UPDATE"
        + " taken_over = IF(" + expired + ", state = 'IN_PROGRESS', taken_over),"
        + " fingerprint = IF(" + expired + ", :fingerprint, fingerprint),"
        + " state = IF(" + expired + ", 'IN_PROGRESS', state),"
        + " owner_token = IF(" + expired + ", :owner, owner_token),"
        + " lease_until = IF(" + expired + ", " + deadline("lease") + ", lease_until),"
        + " created_at = IF(" + expired + ", " + now() + ", created_at),"
        + " completed_at = IF(" + expired + ", NULL, completed_at),"
        + " outcome_kind = IF(" + expired + ", NULL, outcome_kind),"
        + " result_json = IF(" + expired + ", NULL, result_json),"
        + " failure_type = IF(" + expired + ", NULL, failure_type),"
        + " failure_message = IF(" + expired + ", NULL, failure_message),"
        + " expires_at = IF(" + expired + ", " + deadline("lease") + ", expires_at)"
        + (returning ? " RETURNING " + rowColumns : "");
    readSql = "SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now();
    purgeSql = "DELETE FROM " + t + " WHERE expires_at < " + now() + " ORDER BY expires_at LIMIT :max";
  }

  @Override
  String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  String deadline(String param) {
    return "(UTC_TIMESTAMP(6) + INTERVAL :" + param + " MICROSECOND)";
  }

  @Override
  String remainingMicros() {
    return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)";
  }

  @Override
  Claim claim(Handle h, ClaimRequest r) {
    StoredRow row;
    if (returning) {
      row = query(h, claimSql)
          .bind("key", r.storedKey())
          .bind("fingerprint", r.fingerprint())
          .bind("owner", r.owner())
          .bind("lease", r.leaseMicros())
          .map(StoredRow.MAPPER)
          .findOne()
          .orElse(null);
    } else {
      update(h, claimSql)
          .bind("key", r.storedKey())
          .bind("fingerprint", r.fingerprint())
          .bind("owner", r.owner())
          .bind("lease", r.leaseMicros())
          .execute();
      // autocommit: the row may have changed since, which is fine (any live row is an answer), or be
      // gone (released or purged), after which the claim is repeated
      row = query(h, readSql).bind("key", r.storedKey()).map(StoredRow.MAPPER).findOne().orElse(null);
    }
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
