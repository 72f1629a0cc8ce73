package io.idempotent.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.idempotent.internal.Fingerprints;
import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.StoreKeyRules;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The minimal two-commit floor: the least SQL that claims a key before the method runs and records its
 * result after, with none of the store's own statements. A table whose only index is the primary key
 * ({@link SqlRig#FLOOR}); the claim is one {@code INSERT … ON CONFLICT (k) DO NOTHING} (on H2, which has
 * no {@code ON CONFLICT}, {@code INSERT … SELECT … WHERE NOT EXISTS}) with lease and expiry computed from
 * the database's now, and the completion one {@code UPDATE … SET status, result, owner WHERE k = ? AND
 * owner = ?}; each in auto-commit on a connection borrowed from the pool for that statement alone. The
 * same key string, SHA-256 fingerprint and JSON result as {@link HandWrittenJdbc}. A key that is already
 * there is read back ({@code SELECT}) and its result returned.
 *
 * <p>What it leaves out, and the store does not: taking over an expired claim (the insert does nothing on
 * any row there, live or not), reading a live row in the claim statement itself, a purge index, the
 * remaining lifetime, fencing by state. So it is a floor under what the guarantee costs, not an
 * alternative implementation. Thread-safe.
 */
final class MinimalFloor {

  private static final long LEASE_MICROS = 30_000_000L;
  private static final long TTL_MICROS = 86_400_000_000L;
  private static final StoreKeyRules KEY_RULES =
      StoreKeyRules.any().maxChars(255).withoutNul().withoutLoneSurrogates();

  private final DataSource dataSource;
  private final boolean postgres;
  private final String claimSql;
  private final String completeSql;
  private final String readSql;
  private final ObjectWriter writer;
  private final ObjectReader reader;
  private final AtomicLong owners = new AtomicLong();

  MinimalFloor(DataSource dataSource, BenchDatabase db, String table) {
    this.dataSource = dataSource;
    this.postgres = db == BenchDatabase.postgres;
    String lease = postgres ? "now() + ? * INTERVAL '1 microsecond'" : "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
    claimSql = postgres
        ? "INSERT INTO " + table + " (k, fingerprint, status, owner, lease_until, expires_at)"
            + " VALUES (?, ?, 'IN_PROGRESS', ?, " + lease + ", " + lease + ") ON CONFLICT (k) DO NOTHING"
        : "INSERT INTO " + table + " (k, fingerprint, status, owner, lease_until, expires_at)"
            + " SELECT ?, ?, 'IN_PROGRESS', ?, " + lease + ", " + lease
            + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE k = ?)";
    completeSql = "UPDATE " + table + " SET status = 'COMPLETED', result = ?, owner = NULL WHERE k = ? AND owner = ?";
    readSql = "SELECT status, fingerprint, result FROM " + table + " WHERE k = ?";
    ObjectMapper mapper = new ObjectMapper();
    this.writer = mapper.writerFor(Receipt.class);
    this.reader = mapper.readerFor(Receipt.class);
  }

  /** The floor's table: the primary key is its only index. */
  static String ddl(String table) {
    return "CREATE TABLE " + table + " (k VARCHAR(255) NOT NULL PRIMARY KEY, fingerprint VARCHAR(64) NOT NULL,"
        + " status VARCHAR(16) NOT NULL, owner VARCHAR(64), lease_until TIMESTAMP WITH TIME ZONE,"
        + " expires_at TIMESTAMP WITH TIME ZONE NOT NULL, result TEXT)";
  }

  Receipt call(String name, String orderId, long cents, Supplier<Receipt> body) {
    String key = StoredKeys.compose(name, null, orderId, KEY_RULES);
    String fingerprint = Fingerprints.of(new Object[] {orderId, cents});
    String owner = "mf." + Long.toString(owners.incrementAndGet(), 36);
    try {
      int inserted;
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(claimSql)) {
        ps.setString(1, key);
        ps.setString(2, fingerprint);
        ps.setString(3, owner);
        ps.setLong(4, LEASE_MICROS);
        ps.setLong(5, TTL_MICROS);
        if (!postgres) {
          ps.setString(6, key);
        }
        inserted = ps.executeUpdate();
      }
      if (inserted == 0) {
        return existing(key, fingerprint);
      }
      Receipt result = body.get();
      String json = writer.writeValueAsString(result);
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(completeSql)) {
        ps.setString(1, json);
        ps.setString(2, key);
        ps.setString(3, owner);
        if (ps.executeUpdate() != 1) {
          throw new IllegalStateException("claim lost");
        }
      }
      return result;
    } catch (SQLException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Receipt existing(String key, String fingerprint) throws SQLException, IOException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(readSql)) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("the key vanished");
        }
        if (!fingerprint.equals(rs.getString(2))) {
          throw new IllegalStateException("key reused with other arguments");
        }
        if (!"COMPLETED".equals(rs.getString(1))) {
          throw new IllegalStateException("in progress");
        }
        String json = rs.getString(3);
        return json == null ? null : reader.readValue(json);
      }
    }
  }
}
