package io.idempotent.jdbi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB (10.5+). The claim is an {@code INSERT … ON DUPLICATE KEY UPDATE} whose every assignment is
 * conditional on the old row having expired, so a live row is left exactly as it was, and which returns
 * the resulting row from the same statement ({@code RETURNING}). Whose the row is tells whether the claim
 * succeeded: owner tokens are unique per claim.
 *
 * <p>MariaDB applies the assignments left to right and later ones see the values set by earlier ones, so
 * {@code taken_over} (which reads the old state) comes first and {@code expires_at} (which every
 * condition reads) comes last. Times are UTC ({@code UTC_TIMESTAMP(6)} in {@code DATETIME(6)}
 * columns), independent of each session's time zone.
 */
final class MariaDbStatements extends TableStatements {

  private final NamedSql claimSql;
  private final NamedSql purgeSql;
  private final String pickExpiredSql;
  /** The most rows one skip-locked purge picks and deletes, in one short transaction. */
  private static final int MAX_PICKED = 1_000;
  private volatile @Nullable Boolean skipLocked;

  MariaDbStatements(TableName table) {
    super(table);
    String t = table.qualified();
    String expired = "expires_at <= " + now();
    claimSql = NamedSql.of("INSERT INTO " + t + " (idempotency_key, fingerprint, state, owner_token, taken_over,"
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
        + " RETURNING " + rowColumns);
    purgeSql = NamedSql.of("DELETE FROM " + t + " WHERE expires_at < " + now() + " ORDER BY expires_at LIMIT :max");
    pickExpiredSql = "SELECT idempotency_key FROM " + t + " WHERE expires_at < " + now()
        + " ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED";
  }

  @Override
  boolean namesDatabaseAsCatalog() {
    return true;
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
  @Nullable Claim claim(Connection c, ClaimRequest r) {
    StoredRow row = null;
    try (PreparedStatement ps = claimSql.prepare(c)) {
      bindClaim(claimSql, ps, r);
      try (ResultSet rs = ps.executeQuery()) {
        row = rs.next() ? StoredRow.read(rs, 1) : null;
      }
    } catch (SQLException e) {
      throw claimSql.failure(e);
    }
    return claimFrom(row, r);
  }

  /**
   * Deletes expired rows that no other transaction has locked. A plain {@code DELETE … ORDER BY … LIMIT}
   * waits for a row a long transaction holds (a joined caller that updated it) while keeping the rows it
   * already deleted locked, so claims taking over those keys waited with it. Where the server has
   * {@code SKIP LOCKED} (MariaDB 10.6) the rows are picked without waiting and deleted in one
   * short {@code READ COMMITTED} transaction (no gap locks that could hold up a claim's insert).
   */
  @Override
  int purgeExpired(Connection c, int max) {
    if (!skipLocked(c)) {
      return updateWithMax(c, purgeSql, max);
    }
    String sql = pickExpiredSql;
    try {
      boolean autoCommit = c.getAutoCommit();
      try (Statement st = c.createStatement()) {
        st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED"); // the next transaction only
      }
      c.setAutoCommit(false);
      try {
        List<String> keys = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setInt(1, Math.min(max, MAX_PICKED)); // each picked key is one statement of the DELETE batch
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              keys.add(rs.getString(1));
            }
          }
        }
        int deleted = 0;
        if (!keys.isEmpty()) {
          // one key per statement: the rows are locked by this transaction already, and any wider condition
          // (an IN list over most of a small table, or one the expiry index could answer) lets the optimizer
          // scan the table and wait for the rows that others hold, keeping the picked ones locked meanwhile
          sql = "DELETE FROM " + table.qualified() + " WHERE idempotency_key = ?";
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (String key : keys) {
              ps.setString(1, key);
              ps.addBatch();
            }
            for (int n : ps.executeBatch()) {
              deleted += n == Statement.SUCCESS_NO_INFO ? 1 : n; // a picked row is locked: it is there to delete
            }
          }
        }
        c.commit();
        return deleted;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw NamedSql.failure(e, sql);
    }
  }

  /** The first layout's columns, which MariaDB's statements still write (it has no purge column layout). */
  @Override
  List<String> ownColumns() {
    return List.of("lease_until", "created_at", "completed_at");
  }

  @Override
  @Nullable String keyColumnProblem(Connection c) throws SQLException {
    String[] sn = schemaAndName();
    String collation = "utf8mb4_nopad_bin";
    try (PreparedStatement ps = c.prepareStatement("SELECT DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, COLLATION_NAME,"
        + " COLUMN_KEY, (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE k WHERE k.TABLE_SCHEMA ="
        + " c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.CONSTRAINT_NAME = 'PRIMARY')"
        + " FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = COALESCE(?, DATABASE())"
        + " AND c.TABLE_NAME = ? AND c.COLUMN_NAME = 'idempotency_key'")) {
      ps.setString(1, sn[0]);
      ps.setString(2, sn[1]);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null; // no such table (a missing column fails every statement with a clear error)
        }
        String type = rs.getString(1);
        long length = rs.getLong(2);
        String actual = rs.getString(3);
        boolean primary = "PRI".equalsIgnoreCase(rs.getString(4)) && rs.getInt(5) == 1;
        if ("varchar".equalsIgnoreCase(type) && length >= KEY_COLUMN_CHARS
            && collation.equalsIgnoreCase(actual) && primary) {
          return null;
        }
        String t = table.qualified();
        return "its idempotency_key column is " + type + "(" + length + ") COLLATE " + actual
            + (primary ? "" : " and not the table's whole primary key") + "; it must be VARCHAR("
            + KEY_COLUMN_CHARS + ") COLLATE " + collation + " (which compares case and trailing"
            + " spaces exactly) and the primary key. Fix: ALTER TABLE " + t + " MODIFY idempotency_key VARCHAR("
            + KEY_COLUMN_CHARS + ") CHARACTER SET utf8mb4 COLLATE " + collation + " NOT NULL"
            + (primary ? "" : "; ALTER TABLE " + t + " DROP PRIMARY KEY, ADD PRIMARY KEY (idempotency_key)")
            + (primary ? "" : " (drop only an existing primary key)");
      }
    }
  }

  /** Whether the server has {@code SELECT … FOR UPDATE SKIP LOCKED}; asked once. */
  private boolean skipLocked(Connection c) {
    Boolean known = skipLocked;
    if (known == null) {
      try {
        var meta = c.getMetaData();
        int major = meta.getDatabaseMajorVersion();
        int minor = meta.getDatabaseMinorVersion();
        known = major > 10 || (major == 10 && minor >= 6); // MariaDB has it since 10.6
      } catch (SQLException e) {
        known = false;
      }
      skipLocked = known;
    }
    return known;
  }
}
