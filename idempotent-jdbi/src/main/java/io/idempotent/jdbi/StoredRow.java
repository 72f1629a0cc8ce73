package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.mapper.RowMapper;

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
    String outcomeKind,
    String resultJson,
    String failureType,
    String failureMessage,
    long expiresInMicros) {

  /**
   * The table columns {@link #MAPPER} reads, in SQL; each dialect adds its expression for the remaining
   * lifetime as {@link #EXPIRES_IN} (see {@code Dialect#rowColumns}).
   */
  static final String COLUMNS =
      "state, fingerprint, owner_token, taken_over, outcome_kind, result_json, failure_type, failure_message";

  /** The label of the computed column holding the remaining lifetime in microseconds. */
  static final String EXPIRES_IN = "expires_in_us";

  static final RowMapper<StoredRow> MAPPER = StoredRow::read;

  static StoredRow read(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx) throws SQLException {
    return new StoredRow(
        RecordState.valueOf(rs.getString("state")),
        rs.getString("fingerprint"),
        rs.getString("owner_token"),
        rs.getBoolean("taken_over"),
        rs.getString("outcome_kind"),
        rs.getString("result_json"),
        rs.getString("failure_type"),
        rs.getString("failure_message"),
        rs.getLong(EXPIRES_IN));
  }

  /** Whether this row is an IN_PROGRESS claim held by {@code ownerToken}. */
  boolean heldBy(String ownerToken) {
    return state == RecordState.IN_PROGRESS && ownerToken.equals(owner);
  }

  /** The row as the SPI's record, under the caller's (unencoded) key, with its remaining lifetime. */
  IdempotencyRecord toRecord(String key) {
    IdempotencyRecord r = state == RecordState.IN_PROGRESS
        ? IdempotencyRecord.inProgress(key, fingerprint, owner)
        : IdempotencyRecord.completed(key, fingerprint, outcome());
    return r.withExpiresIn(Duration.ofNanos(Math.max(0, expiresInMicros) * 1_000));
  }

  private StoredOutcome outcome() {
    StoredOutcome.Kind kind = StoredOutcome.Kind.valueOf(outcomeKind);
    return switch (kind) {
      case VALUE -> StoredOutcome.valueJson(resultJson);
      case NULL -> StoredOutcome.nullValue();
      case FAILURE -> StoredOutcome.failure(failureType, failureMessage);
    };
  }
}
