package io.idempotent.reliability;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * A deliberately wrong table store for the clock-skew test: it computes every deadline and every
 * "has it expired?" from the application's clock ({@link System#currentTimeMillis()}), as a store that
 * trusted its callers' clocks would. Otherwise it is a correct atomic store (a row lock per claim), so
 * that whatever goes wrong with it in the test comes from the clocks alone. Never use it otherwise.
 * Thread-safe.
 */
public final class JvmClockTableStore implements IdempotencyStore {

  /** The table, created by {@link #createTable()}. */
  public static final String TABLE = "rel_jvm_clock_records";

  private static final String COLUMNS = "state, fingerprint, owner_token, deadline_ms, outcome_kind, result_json,"
      + " failure_type, failure_message";

  private final Jdbi jdbi;

  public JvmClockTableStore(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Creates the table unless it exists (PostgreSQL). */
  public JvmClockTableStore createTable() {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (idempotency_key VARCHAR(300) PRIMARY KEY,"
        + " state VARCHAR(20) NOT NULL, fingerprint VARCHAR(200) NOT NULL, owner_token VARCHAR(200),"
        + " deadline_ms BIGINT NOT NULL, outcome_kind VARCHAR(20), result_json TEXT, failure_type TEXT,"
        + " failure_message TEXT)"));
    return this;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    long now = System.currentTimeMillis();
    return jdbi.inTransaction(h -> {
      int inserted = h.createUpdate("INSERT INTO " + TABLE + " (idempotency_key, state, fingerprint, owner_token,"
              + " deadline_ms) VALUES (:key, 'IN_PROGRESS', :fp, :owner, :deadline) ON CONFLICT DO NOTHING")
          .bind("key", key).bind("fp", fingerprint).bind("owner", owner).bind("deadline", now + lease.toMillis())
          .execute();
      if (inserted == 1) {
        return ClaimResult.acquired();
      }
      IdempotencyRecord existing = read(h, key, " FOR UPDATE");
      long deadline = h.createQuery("SELECT deadline_ms FROM " + TABLE + " WHERE idempotency_key = :key")
          .bind("key", key).mapTo(Long.class).one();
      if (deadline > now) {
        return ClaimResult.existing(existing);
      }
      h.createUpdate("UPDATE " + TABLE + " SET state = 'IN_PROGRESS', fingerprint = :fp, owner_token = :owner,"
              + " deadline_ms = :deadline, outcome_kind = NULL, result_json = NULL, failure_type = NULL,"
              + " failure_message = NULL WHERE idempotency_key = :key")
          .bind("key", key).bind("fp", fingerprint).bind("owner", owner).bind("deadline", now + lease.toMillis())
          .execute();
      return existing.state() == RecordState.IN_PROGRESS ? ClaimResult.takenOver() : ClaimResult.acquired();
    });
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    OutcomeFields o = OutcomeFields.of(outcome);
    long now = System.currentTimeMillis();
    return jdbi.withHandle(h -> h.createUpdate("UPDATE " + TABLE + " SET state = 'COMPLETED', deadline_ms = :deadline,"
            + " outcome_kind = :kind, result_json = :json, failure_type = :ft, failure_message = :fm"
            + " WHERE idempotency_key = :key AND owner_token = :owner AND state = 'IN_PROGRESS'")
        .bind("deadline", now + ttl.toMillis()).bind("kind", o.kind()).bind("json", o.json())
        .bind("ft", o.failureType()).bind("fm", o.failureMessage()).bind("key", key).bind("owner", owner)
        .execute()) == 1;
  }

  @Override
  public boolean release(String key, String owner) {
    return jdbi.withHandle(h -> h.createUpdate("DELETE FROM " + TABLE
            + " WHERE idempotency_key = :key AND owner_token = :owner AND state = 'IN_PROGRESS'")
        .bind("key", key).bind("owner", owner).execute()) == 1;
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    long now = System.currentTimeMillis();
    return jdbi.withHandle(h -> h.createUpdate("UPDATE " + TABLE + " SET deadline_ms = :deadline"
            + " WHERE idempotency_key = :key AND owner_token = :owner AND state = 'IN_PROGRESS'")
        .bind("deadline", now + lease.toMillis()).bind("key", key).bind("owner", owner).execute()) == 1;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    long now = System.currentTimeMillis();
    return jdbi.withHandle(h -> {
      Long deadline = h.createQuery("SELECT deadline_ms FROM " + TABLE + " WHERE idempotency_key = :key")
          .bind("key", key).mapTo(Long.class).findOne().orElse(null);
      return deadline == null || deadline <= now ? Optional.empty() : Optional.ofNullable(read(h, key, ""));
    });
  }

  @Override
  public int purgeExpired(int maxRecords) {
    long now = System.currentTimeMillis();
    return jdbi.withHandle(h -> h.createUpdate("DELETE FROM " + TABLE + " WHERE deadline_ms < :now")
        .bind("now", now).execute());
  }

  private static IdempotencyRecord read(Handle h, String key, String lock) {
    return h.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE idempotency_key = :key" + lock)
        .bind("key", key)
        .map((rs, ctx) -> {
          RecordState state = RecordState.valueOf(rs.getString(1));
          StoredOutcome outcome = state == RecordState.COMPLETED
              ? new OutcomeFields(rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8)).toOutcome()
              : null;
          return new IdempotencyRecord(key, state, rs.getString(2), rs.getString(3), outcome);
        })
        .findOne().orElse(null);
  }
}
