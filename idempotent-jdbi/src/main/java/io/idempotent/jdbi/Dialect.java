package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyRecord;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementException;
import org.jdbi.v3.core.statement.StatementExceptions;
import org.jdbi.v3.core.statement.Update;

/**
 * The SQL of one database. Every time comparison and every deadline is computed by the database from its
 * own clock plus a duration bound in microseconds; the application's clock is never read. Subclasses
 * supply the clock expressions, the atomic claim and the bounded purge; the fenced updates are shared.
 * Stateless after construction and thread-safe.
 */
abstract class Dialect {

  /** Statement errors name the SQL but never the bound values: they hold keys and results (SPEC §8). */
  private static final Function<StatementException, String> NO_ARGUMENTS = e -> e.getStatementContext() == null
      ? e.getShortMessage()
      : e.getShortMessage() + " [statement:\"" + e.getStatementContext().getRenderedSql() + "\"]";

  /** What a claim found. {@code existing} is set exactly when {@code claimed} is false. */
  record Claim(boolean claimed, boolean takenOver, IdempotencyRecord existing) {}

  /** The arguments of a claim. */
  record ClaimRequest(String storedKey, String key, String fingerprint, String owner, long leaseMicros) {}

  final TableName table;
  /** The columns of {@link StoredRow}, including the remaining lifetime computed in the same statement. */
  final String rowColumns;
  private final String completeSql;
  private final String releaseSql;
  private final String renewSql;
  private final String findSql;

  Dialect(TableName table) {
    this.table = table;
    String t = table.qualified();
    this.rowColumns = StoredRow.COLUMNS + ", " + remainingMicros() + " AS " + StoredRow.EXPIRES_IN;
    String fenced = " WHERE idempotency_key = :key AND state = 'IN_PROGRESS' AND owner_token = :owner";
    this.completeSql = "UPDATE " + t + " SET state = 'COMPLETED', lease_until = NULL, expires_at = "
        + deadline("ttl") + ", completed_at = " + now() + ", outcome_kind = :kind, result_json = :json,"
        + " failure_type = :failureType, failure_message = :failureMessage" + fenced;
    this.releaseSql = "DELETE FROM " + t + fenced;
    this.renewSql = "UPDATE " + t + " SET lease_until = " + deadline("lease") + ", expires_at = "
        + deadline("lease") + fenced;
    this.findSql = "SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now();
  }

  /** The database's current time, fixed for the duration of one statement. */
  abstract String now();

  /** The database's current time plus the microseconds bound to {@code :param}. */
  abstract String deadline(String param);

  /**
   * The whole microseconds from the database's current time to the row's {@code expires_at}, as a
   * 64-bit integer; evaluated in the statement that reads the row, so it costs no round trip.
   */
  abstract String remainingMicros();

  /**
   * Claims atomically (one statement where the database allows it).
   *
   * @return the claim, or null when a concurrent change hid the row and the claim must simply be repeated
   */
  abstract Claim claim(Handle h, ClaimRequest r);

  /** Deletes at most {@code max} expired rows in one short statement. */
  abstract int purgeExpired(Handle h, int max);

  /** Whether {@code sqlState} is a transient failure after which the claim may be repeated safely. */
  boolean isRetryable(String sqlState) {
    // 40001 serialization failure / deadlock (MariaDB, MySQL, H2), 40P01 deadlock (PostgreSQL)
    return "40001".equals(sqlState) || "40P01".equals(sqlState);
  }

  final int complete(Handle h, String storedKey, String owner, OutcomeColumns o, long ttlMicros) {
    return update(h, completeSql)
        .bind("key", storedKey)
        .bind("owner", owner)
        .bind("ttl", ttlMicros)
        .bind("kind", o.kind())
        .bind("json", o.resultJson())
        .bind("failureType", o.failureType())
        .bind("failureMessage", o.failureMessage())
        .execute();
  }

  final int release(Handle h, String storedKey, String owner) {
    return update(h, releaseSql).bind("key", storedKey).bind("owner", owner).execute();
  }

  final int renew(Handle h, String storedKey, String owner, long leaseMicros) {
    return update(h, renewSql).bind("key", storedKey).bind("owner", owner).bind("lease", leaseMicros).execute();
  }

  final StoredRow find(Handle h, String storedKey) {
    return query(h, findSql).bind("key", storedKey).map(StoredRow.MAPPER).findOne().orElse(null);
  }

  static Update update(Handle h, String sql) {
    return h.createUpdate(sql).configure(StatementExceptions.class, c -> c.setMessageRendering(NO_ARGUMENTS));
  }

  static Query query(Handle h, String sql) {
    return h.createQuery(sql).configure(StatementExceptions.class, c -> c.setMessageRendering(NO_ARGUMENTS));
  }

  /**
   * @param relaxedClaim claims commit without waiting for durability (PostgreSQL only; the builder
   *     rejects it for other databases)
   */
  static Dialect of(SqlDialect dialect, TableName table, boolean relaxedClaim) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresDialect(table, relaxedClaim);
      case MARIADB -> new MySqlDialect(table, true);
      case MYSQL -> new MySqlDialect(table, false);
      case H2 -> new H2Dialect(table);
    };
  }
}
