package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.OutcomeFields;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The statements of the store's table on one database (the {@link SqlDialect} it was made for). Every
 * time comparison and every deadline is computed by the database from its own clock plus a duration bound
 * in microseconds; the application's clock is never read. Subclasses
 * supply the clock expressions, the atomic claim and the bounded purge; the fenced updates are shared.
 * Statements run on plain JDBC; a failed one throws an unchecked
 * {@link io.idempotent.IdempotencyStoreException} naming its SQL but never its values. Thread-safe; the
 * only state after construction is the TTL guess of the purge column (see {@link #purgeMicros}).
 *
 * <p>Two table layouts exist. The PostgreSQL and H2 dialects use the <em>purge column</em> layout:
 * {@code purge_after} (indexed) says when the purge may delete the row, and {@code expires_at} (not
 * indexed) when the row stops being live. The claim sets {@code purge_after} to its lease plus a guess
 * of the TTL to come, and the completion leaves it alone whenever it lies between the new expiry and
 * twice the TTL after now, so that the completion changes no indexed column (on PostgreSQL a HOT update).
 * Every statement keeps {@code purge_after >= expires_at}, so whatever the purge deletes has expired,
 * and a completed record is deleted no later than two TTLs after its completion. MariaDB keeps
 * the first layout: an index on {@code expires_at} and the {@code lease_until}, {@code created_at} and
 * {@code completed_at} columns.
 */
abstract class TableStatements {

  /** What a claim found. {@code existing} is set exactly when {@code claimed} is false. */
  record Claim(boolean claimed, boolean takenOver, @Nullable IdempotencyRecord existing) {}

  /**
   * A claim refused without waiting: another transaction holds an uncommitted claim of the key (or, for a
   * lock on a hash, of a key sharing it); see {@link NoWaitClaim}.
   */
  static final Claim BUSY = new Claim(false, false, null);

  /** The length of the key column, in characters: the longest key kept. */
  static final int KEY_COLUMN_CHARS = 255;

  /** The arguments of a claim: {@code key} is the stored key, which the store's key rules accepted. */
  record ClaimRequest(String key, String fingerprint, String owner, long leaseMicros) {}

  /** The longest TTL the purge column's guess takes: a day (the default TTL). */
  static final long MAX_TTL_GUESS_MICROS = 86_400_000_000L;

  final TableName table;
  /** Whether the table has the purge column layout (PostgreSQL, H2). */
  final boolean purgeColumn;
  /**
   * The TTL of the last completion, at most {@link #MAX_TTL_GUESS_MICROS}: what the next claim guesses its
   * own completion's TTL to be. Only a guess; a wrong one costs a completion that moves {@code purge_after}.
   */
  private volatile long ttlGuessMicros;
  /** The columns of {@link StoredRow}, including the remaining lifetime computed in the same statement. */
  final String rowColumns;
  private final NamedSql completeSql;
  /** The completion's text, for a statement that follows it with more (see {@link #completeThen}). */
  private final String completeText;
  private final NamedSql releaseSql;
  private final NamedSql renewSql;
  private final NamedSql findSql;

  /** A dialect with the first layout (index on {@code expires_at}), as MariaDB uses it. */
  TableStatements(TableName table) {
    this(table, false);
  }

  TableStatements(TableName table, boolean purgeColumn) {
    this.table = table;
    this.purgeColumn = purgeColumn;
    String t = table.qualified();
    this.rowColumns = StoredRow.COLUMNS + ", " + remainingMicros() + " AS " + StoredRow.EXPIRES_IN;
    String fenced = " WHERE idempotency_key = :key AND state = 'IN_PROGRESS' AND owner_token = :owner";
    String outcome = ", outcome_kind = :kind, result_json = :json, failure_type = :failureType,"
        + " failure_message = :failureMessage";
    if (purgeColumn) {
      this.completeText = "UPDATE " + t + " SET " + completedColumns() + outcome + fenced;
      this.renewSql = NamedSql.of("UPDATE " + t + " SET expires_at = " + deadline("lease")
          + ", purge_after = GREATEST(purge_after, " + deadline("lease") + ")" + fenced);
    } else {
      this.completeText = "UPDATE " + t + " SET state = 'COMPLETED', lease_until = NULL, expires_at = "
          + deadline("ttl") + ", completed_at = " + now() + outcome + fenced;
      this.renewSql = NamedSql.of("UPDATE " + t + " SET lease_until = " + deadline("lease") + ", expires_at = "
          + deadline("lease") + fenced);
    }
    this.completeSql = NamedSql.of(completeText);
    this.releaseSql = NamedSql.of("DELETE FROM " + t + fenced);
    this.findSql = NamedSql.of("SELECT " + rowColumns + " FROM " + t
        + " WHERE idempotency_key = :key AND expires_at > " + now());
  }

  /**
   * The assignments that mark a row COMPLETED, kept for {@code :ttl} (purge column layout): {@code purge_after}
   * stays as the claim set it when it lies in [expiry, expiry + ttl], so no indexed column changes; otherwise
   * it becomes the expiry itself.
   */
  final String completedColumns() {
    String expiry = deadline("ttl");
    return "state = 'COMPLETED', expires_at = " + expiry + ", purge_after = CASE WHEN purge_after >= " + expiry
        + " AND purge_after <= " + deadline("twoTtl") + " THEN purge_after ELSE " + expiry + " END";
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
  abstract @Nullable Claim claim(Connection c, ClaimRequest r);

  /**
   * Claims each of {@code requests} (distinct keys of one owner) on {@code c}, as {@link #claim} does; where
   * the database allows it in one statement, otherwise key by key.
   *
   * @return one claim per request, in order; null where a concurrent change hid the row (repeat that one)
   */
  List<@Nullable Claim> claimAll(Connection c, List<ClaimRequest> requests) {
    List<@Nullable Claim> claims = new ArrayList<>(requests.size());
    for (ClaimRequest r : requests) {
      claims.add(claim(c, r));
    }
    return claims;
  }

  /**
   * Completes each of {@code keys} held by {@code owner} with the outcome at the same place, as {@link #complete}
   * does; where the database allows it in one statement, otherwise key by key.
   *
   * @return per key, in order, whether it was completed
   */
  boolean[] completeAll(Connection c, List<String> keys, String owner, List<OutcomeFields> outcomes, long ttlMicros) {
    boolean[] done = new boolean[keys.size()];
    for (int i = 0; i < done.length; i++) {
      done[i] = complete(c, keys.get(i), owner, outcomes.get(i), ttlMicros) == 1;
    }
    return done;
  }

  /**
   * How a batch in the caller's transaction is recorded when it completes, on a database where that is one
   * statement ({@link PostgresBatchRecords}); null where it is claimed first, then completed.
   */
  @Nullable PostgresBatchRecords batchRecords() {
    return null;
  }

  /** Deletes at most {@code max} expired rows in one short statement. */
  abstract int purgeExpired(Connection c, int max);

  /**
   * What is wrong with an existing table's key column, with the DDL that fixes it, or null when it is
   * right or the table does not exist. A key column that compares loosely (ignoring case or trailing
   * spaces), is too short, or is not the whole primary key would make distinct keys share a row or
   * fail later; it is refused at start-up instead.
   */
  @Nullable String keyColumnProblem(Connection c) throws SQLException {
    return null;
  }

  /** The table's schema (null: the connection's current one) and name, for catalog queries. */
  final String[] schemaAndName() {
    String q = table.qualified();
    int dot = q.indexOf('.');
    return dot < 0 ? new String[] {null, q} : new String[] {q.substring(0, dot), q.substring(dot + 1)};
  }

  /**
   * What is wrong with an existing table's columns for this dialect's statements, with the DDL that
   * migrates it, or null when nothing is or the table does not exist: a column the statements use is
   * missing (a table of another shape, or of another application, under the same name), or (PostgreSQL, H2)
   * the table has the first layout of this library.
   */
  final @Nullable String layoutProblem(Connection c) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String[] sn = schemaAndName();
    String schema = sn[0] != null ? sn[0] : c.getSchema();
    String name = sn[1];
    if (meta.storesUpperCaseIdentifiers()) {
      schema = schema == null ? null : schema.toUpperCase(Locale.ROOT);
      name = name.toUpperCase(Locale.ROOT);
    } else if (meta.storesLowerCaseIdentifiers()) {
      schema = schema == null ? null : schema.toLowerCase(Locale.ROOT);
      name = name.toLowerCase(Locale.ROOT);
    }
    Set<String> columns = new HashSet<>();
    List<String> legacyNotNull = new ArrayList<>();
    // MariaDB names a database where others name a schema
    String catalog = namesDatabaseAsCatalog() ? (sn[0] != null ? sn[0] : c.getCatalog()) : null;
    try (ResultSet rs = meta.getColumns(catalog, catalog != null ? null : schema, name, "%")) {
      while (rs.next()) {
        String column = rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
        columns.add(column);
        if (LEGACY_COLUMNS.contains(column) && rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls) {
          legacyNotNull.add(column);
        }
      }
    }
    if (columns.isEmpty()) {
      return null;
    }
    List<String> missing = new ArrayList<>();
    for (String required : concat(REQUIRED_COLUMNS, ownColumns())) {
      if (!columns.contains(required)) {
        missing.add(required);
      }
    }
    boolean purge = columns.contains("purge_after");
    if (!missing.isEmpty()) {
      return "it has no column " + String.join(", ", missing) + ", which the store reads and writes: it is not a"
          + " table of this library's layout (another table of that name?). Use another table name, or create it"
          + " with the DDL shipped in idempotent-jdbi (io/idempotent/jdbi/schema-*.sql)";
    }
    if (!purgeColumn || (purge && legacyNotNull.isEmpty())) {
      return null;
    }
    return (purge ? "its column(s) " + String.join(", ", legacyNotNull) + " are NOT NULL, but are no longer written"
        : "it has no purge_after column (it was created by an earlier version of this library)")
        + ". Migrate it, with no instance of the application running, by: " + String.join("; ", migration());
  }

  /** The columns every dialect's statements read or write. */
  private static final List<String> REQUIRED_COLUMNS = List.of("idempotency_key", "fingerprint", "state",
      "owner_token", "taken_over", "expires_at", "outcome_kind", "result_json", "failure_type", "failure_message");

  /** The columns this dialect's statements read or write besides {@link #REQUIRED_COLUMNS}. */
  List<String> ownColumns() {
    return List.of();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** The columns of the first layout that the purge column layout no longer writes. */
  private static final List<String> LEGACY_COLUMNS = List.of("lease_until", "created_at", "completed_at");

  /** The DDL that turns a table of the first layout into one of this dialect's purge column layout. */
  List<String> migration() {
    return List.of();
  }

  /**
   * The microseconds from a claim to its {@code purge_after}: the lease plus the guessed TTL, so that a
   * completion within the lease with the guessed TTL leaves {@code purge_after} as it is.
   */
  final long purgeMicros(long leaseMicros) {
    return leaseMicros + ttlGuessMicros;
  }

  /** Whether {@code sqlState} is a transient failure after which the claim may be repeated safely. */
  boolean isRetryable(@Nullable String sqlState) {
    // 40001 serialization failure / deadlock (MariaDB, H2), 40P01 deadlock (PostgreSQL)
    return "40001".equals(sqlState) || "40P01".equals(sqlState);
  }

  final int complete(Connection c, String storedKey, String owner, OutcomeFields o, long ttlMicros) {
    try (PreparedStatement ps = completeSql.prepare(c)) {
      bindComplete(completeSql, ps, storedKey, owner, o, ttlMicros);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw completeSql.failure(e);
    }
  }

  /** The completion followed by {@code more} (e.g. {@code "; COMMIT"}), bound by {@link #bindComplete}. */
  final NamedSql completeThen(String more) {
    return NamedSql.of(completeText + more);
  }

  /** Binds the completion's parameters in {@code sql}, a completion statement of this dialect. */
  final void bindComplete(NamedSql sql, PreparedStatement ps, String storedKey, String owner, OutcomeFields o,
      long ttlMicros) throws SQLException {
    sql.set(ps, "key", storedKey);
    bindCompletionTimes(sql, ps, owner, ttlMicros);
    sql.set(ps, "kind", o.kind());
    sql.set(ps, "json", o.json());
    sql.set(ps, "failureType", o.failureType());
    sql.set(ps, "failureMessage", o.failureMessage());
  }

  /** Binds a completion's owner and TTL, and notes the TTL as the next claim's guess. */
  final void bindCompletionTimes(NamedSql sql, PreparedStatement ps, String owner, long ttlMicros) throws SQLException {
    sql.set(ps, "owner", owner);
    sql.set(ps, "ttl", ttlMicros);
    if (purgeColumn) {
      sql.set(ps, "twoTtl", 2 * ttlMicros);
      long guess = Math.min(ttlMicros, MAX_TTL_GUESS_MICROS);
      if (guess != ttlGuessMicros) {
        ttlGuessMicros = guess;
      }
    }
  }

  final int release(Connection c, String storedKey, String owner) {
    return fenced(c, releaseSql, storedKey, owner, -1);
  }

  final int renew(Connection c, String storedKey, String owner, long leaseMicros) {
    return fenced(c, renewSql, storedKey, owner, leaseMicros);
  }

  private static int fenced(Connection c, NamedSql sql, String storedKey, String owner, long leaseMicros) {
    try (PreparedStatement ps = sql.prepare(c)) {
      sql.set(ps, "key", storedKey);
      sql.set(ps, "owner", owner);
      if (leaseMicros >= 0) {
        sql.set(ps, "lease", leaseMicros);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw sql.failure(e);
    }
  }

  final @Nullable StoredRow find(Connection c, String storedKey) {
    return readRow(c, findSql, storedKey);
  }

  /** The live row of {@code storedKey} read by {@code sql} (whose only parameter is {@code :key}), or null. */
  static @Nullable StoredRow readRow(Connection c, NamedSql sql, String storedKey) {
    try (PreparedStatement ps = sql.prepare(c)) {
      sql.set(ps, "key", storedKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? StoredRow.read(rs, 1) : null;
      }
    } catch (SQLException e) {
      throw sql.failure(e);
    }
  }

  /** Runs an update whose only parameter is {@code :max}. */
  static int updateWithMax(Connection c, NamedSql sql, int max) {
    try (PreparedStatement ps = sql.prepare(c)) {
      sql.set(ps, "max", max);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw sql.failure(e);
    }
  }

  /** Binds the claim's parameters that {@code sql} has (every claim statement has all four). */
  static void bindClaim(NamedSql sql, PreparedStatement ps, ClaimRequest r) throws SQLException {
    sql.set(ps, "key", r.key());
    sql.set(ps, "fingerprint", r.fingerprint());
    sql.set(ps, "owner", r.owner());
    sql.set(ps, "lease", r.leaseMicros());
  }

  /** What a claim found in {@code row}, read back after the claim: whose the row is says who holds the key. */
  static @Nullable Claim claimFrom(@Nullable StoredRow row, ClaimRequest r) {
    if (row == null) {
      return null;
    }
    if (row.heldBy(r.owner())) {
      return new Claim(true, row.takenOver(), null);
    }
    return new Claim(false, false, row.toRecord(r.key()));
  }

  /** Whether the database names with a catalog what others name with a schema (MariaDB does). */
  boolean namesDatabaseAsCatalog() {
    return false;
  }
}
