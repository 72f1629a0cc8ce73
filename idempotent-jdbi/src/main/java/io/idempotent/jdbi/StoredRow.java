package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.RecordState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A row of the record table as the store reads it back, with how long it has left: {@code expiresInMicros}
 * is computed by the database in the statement that read the row ({@code expires_at} minus the
 * database's now), so that no application clock is involved.
 */
record StoredRow(
    RecordState state,
    String fingerprint,
    String owner,
    boolean takenOver,
    OutcomeFields outcome,
    long expiresInMicros) {

  /**
   * The table columns {@link #read} reads, in SQL and in this order; each dialect adds its expression for the remaining
   * lifetime as {@link #EXPIRES_IN} (see {@code TableStatements#rowColumns}).
   */
  static final String COLUMNS =
      "state, fingerprint, owner_token, taken_over, outcome_kind, result_json, failure_type, failure_message";

  /** The label of the computed column holding the remaining lifetime in microseconds. */
  static final String EXPIRES_IN = "expires_in_us";

  /**
   * Reads the row from the current line of {@code rs}, whose columns from {@code first} on are
   * {@link #COLUMNS} and then {@link #EXPIRES_IN}, in that order (by position: no lookup by name).
   */
  static StoredRow read(ResultSet rs, int first) throws SQLException {
    return new StoredRow(
        RecordState.valueOf(rs.getString(first)),
        rs.getString(first + 1),
        rs.getString(first + 2),
        rs.getBoolean(first + 3),
        new OutcomeFields(rs.getString(first + 4), rs.getString(first + 5), rs.getString(first + 6),
            rs.getString(first + 7)),
        rs.getLong(first + 8));
  }

  /** Whether this row is an IN_PROGRESS claim held by {@code ownerToken}. */
  boolean heldBy(String ownerToken) {
    return state == RecordState.IN_PROGRESS && ownerToken.equals(owner);
  }

  /** The row as the SPI's record, under the caller's (unencoded) key, with its remaining lifetime. */
  IdempotencyRecord toRecord(String key) {
    IdempotencyRecord r = state == RecordState.IN_PROGRESS
        ? IdempotencyRecord.inProgress(key, fingerprint, owner)
        : IdempotencyRecord.completed(key, fingerprint, outcome.toOutcome());
    return r.withExpiresIn(Duration.ofNanos(Math.max(0, expiresInMicros) * 1_000));
  }
}
