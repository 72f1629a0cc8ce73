package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jdbi.v3.core.mapper.RowMapper;

/** A row of the record table as the store reads it back. */
record StoredRow(
    RecordState state,
    String fingerprint,
    String owner,
    boolean takenOver,
    String outcomeKind,
    String resultJson,
    String failureType,
    String failureMessage) {

  /** The columns {@link #MAPPER} reads, in SQL. */
  static final String COLUMNS =
      "state, fingerprint, owner_token, taken_over, outcome_kind, result_json, failure_type, failure_message";

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
        rs.getString("failure_message"));
  }

  /** Whether this row is an IN_PROGRESS claim held by {@code ownerToken}. */
  boolean heldBy(String ownerToken) {
    return state == RecordState.IN_PROGRESS && ownerToken.equals(owner);
  }

  /** The row as the SPI's record, under the caller's (unencoded) key. */
  IdempotencyRecord toRecord(String key) {
    if (state == RecordState.IN_PROGRESS) {
      return IdempotencyRecord.inProgress(key, fingerprint, owner);
    }
    return IdempotencyRecord.completed(key, fingerprint, outcome());
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
