package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.OutcomeFields;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * The claim of a transaction-scoped call ({@link TransactionMode#TRANSACTION_SCOPED}), made inside an open
 * transaction that it leaves open. Another call of the same key may hold its claim row uncommitted, locked,
 * for as long as its method runs; a claim that waited for that lock would hold its connection (and, joined,
 * its caller's transaction) all that time. So the running claim is found without waiting, and reported as
 * {@link TableStatements#BUSY}. Whatever the non-blocking step lets through, the claim statement's insert still decides
 * who holds the key: a lock on a hash can only make a call wait or be refused, never run twice.
 * Stateless after construction and thread-safe.
 */
abstract class NoWaitClaim {

  final TableStatements statements;

  NoWaitClaim(TableStatements statements) {
    this.statements = statements;
  }

  /**
   * Claims {@code r.key()} on {@code c}, whose transaction is open and stays open.
   *
   * @return the claim; {@link TableStatements#BUSY}; or null when a concurrent commit hid the row and the claim must be
   *     repeated in a new transaction (the caller rolls this one back)
   */
  abstract TableStatements.@Nullable Claim claim(Connection c, TableStatements.ClaimRequest r);

  /**
   * As {@link #claim}, as the first statement of a transaction of the store's own, which then stays open
   * while the method runs: it also sets what that transaction needs whatever the session's defaults are
   * (a DBA's {@code SERIALIZABLE} default, an idle-in-transaction timeout that would end it while the method
   * runs). {@link #ownEnded} puts back what must be put back once the transaction is over. Called only
   * after {@link #liveBeforeOwn} found no live row of the key on {@code c}.
   */
  TableStatements.@Nullable Claim claimOwn(Connection c, TableStatements.ClaimRequest r) {
    return claim(c, r);
  }

  /**
   * The answer a live row of the key gives (a replay, a duplicate in progress), read on {@code c} before
   * the store's own transaction begins, where a read costs no round trip (H2 runs in the application's
   * process); null when there is no such row, or where the read is left to the claim statement itself.
   */
  TableStatements.@Nullable Claim liveBeforeOwn(Connection c, TableStatements.ClaimRequest r) {
    return null;
  }

  /** The store's own transaction that {@link #claimOwn} began is over (committed or rolled back). */
  void ownEnded(Connection c) {}

  /**
   * Whether a transaction holds an uncommitted claim of {@code storedKey} now, as far as this database can
   * tell without waiting; asked by a duplicate that found no committed row. False where it cannot tell.
   */
  boolean running(Connection c, String storedKey) {
    return false;
  }

  /**
   * Writes the outcome of a claim made in a transaction of the store's own and commits that transaction,
   * in fewer round trips than the statement and a separate {@code COMMIT} where the database allows it.
   *
   * @return whether the outcome was written (and committed), or null where the database has no shorter way:
   *     the caller then runs the dialect's completion and commits
   */
  @Nullable Boolean completeAndCommit(Connection c, String storedKey, String owner, OutcomeFields o, long ttlMicros) {
    return null;
  }

  static NoWaitClaim of(SqlDialect sqlDialect, TableStatements statements) {
    return switch (sqlDialect) {
      case POSTGRESQL -> new Postgres(statements);
      case MARIADB -> new InnoDb(statements);
      case H2 -> new H2((H2Statements) statements);
    };
  }

  /**
   * PostgreSQL: {@code pg_try_advisory_xact_lock} on a 64-bit hash of the table and the stored key, taken
   * in the claim statement before its insert and held until the transaction ends. Every transaction-scoped
   * claim of a key takes the same lock first, so a claim that gets it meets no uncommitted row of its key
   * but one its own transaction wrote (a second call in a joined transaction, which the statement answers
   * from that row). The insert, its {@code ON CONFLICT} and the read of the live row are those of
   * {@link PostgresStatements}'s claim, and they decide: keys sharing a hash, or an application's own advisory
   * lock on the same number, only make a call wait or be refused.
   */
  static final class Postgres extends NoWaitClaim {
    /**
     * A digest per thread, reset by each {@code digest}: looking one up per claim costs a provider search.
     * (The engine's {@code Hashing} keeps one too, but its internals are not open to this module.)
     */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
      try {
        return MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is missing from this JVM", e);
      }
    });
    private static final String HELD = "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
        + " AND classid = CAST(CAST(? AS bigint) AS oid) AND objid = CAST(CAST(? AS bigint) AS oid)"
        + " AND objsubid = 1 AND granted)";
    /**
     * The lock and the claim in one statement (one round trip): the dialect's claim, with its insert made
     * only when the lock was granted, and a third answer, {@code claimed} NULL ({@link TableStatements#BUSY}), when it was
     * not and no live row is committed. The live-row test is a one-time filter evaluated before the lock is asked for, so a
     * replay takes no lock at all.
     */
    private final NamedSql claimSql;
    /**
     * The claim that begins a transaction of the store's own, in the same round trip: at READ COMMITTED,
     * which the claim's reasoning assumes, whatever the session's default; and exempt from
     * {@code idle_in_transaction_session_timeout} (for this transaction only), since it stays open while
     * the method runs.
     */
    private final NamedSql ownClaimSql;
    private final NamedSql completeAndCommitSql;
    private final PostgresStatements postgres;
    /** What every lock key hashes before the stored key: the table's qualified name and a zero byte. */
    private final byte[] lockKeyPrefix;

    Postgres(TableStatements statements) {
      super(statements);
      PostgresStatements postgres = (PostgresStatements) statements;
      this.postgres = postgres;
      this.lockKeyPrefix = (statements.table.qualified() + "\0").getBytes(StandardCharsets.UTF_8);
      completeAndCommitSql = postgres.completeThen("; COMMIT");
      String nulls = String.join(", ", java.util.Collections.nCopies(
          StoredRow.COLUMNS.split(",").length + 1, "NULL"));
      String claim = postgres.claimStatement("lock AS (SELECT pg_try_advisory_xact_lock(:lock) AS got), ",
          " FROM lock", " AND lock.got",
          " UNION ALL SELECT NULL AS claimed, " + nulls + " FROM lock"
              + " WHERE NOT EXISTS (" + postgres.liveRow() + ") AND NOT lock.got");
      claimSql = NamedSql.of(claim);
      ownClaimSql = NamedSql.of("SET TRANSACTION ISOLATION LEVEL READ COMMITTED;"
          + " SET LOCAL idle_in_transaction_session_timeout = 0; " + claim);
    }

    @Override
    TableStatements.@Nullable Claim claim(Connection c, TableStatements.ClaimRequest r) {
      return claim(claimSql, c, r);
    }

    @Override
    TableStatements.@Nullable Claim claimOwn(Connection c, TableStatements.ClaimRequest r) {
      return claim(ownClaimSql, c, r);
    }

    private TableStatements.@Nullable Claim claim(NamedSql sql, Connection c, TableStatements.ClaimRequest r) {
      try (PreparedStatement ps = sql.prepare(c)) {
        sql.set(ps, "lock", lockKey(r.key()));
        return postgres.runClaim(sql, ps, r);
      } catch (SQLException e) {
        throw sql.failure(e);
      }
    }

    /**
     * The completion and the {@code COMMIT} in one round trip: one prepared statement of two, which the
     * driver sends together. Should the update fail, the server has aborted the transaction and the
     * {@code COMMIT} rolls it back. The update is {@link TableStatements}'s completion, fenced the same way.
     */
    @Override
    Boolean completeAndCommit(Connection c, String storedKey, String owner, OutcomeFields o, long ttlMicros) {
      try (PreparedStatement ps = completeAndCommitSql.prepare(c)) {
        statements.bindComplete(completeAndCommitSql, ps, storedKey, owner, o, ttlMicros);
        ps.execute();
        return ps.getUpdateCount() == 1; // the claim row is this transaction's own: always 1
      } catch (SQLException e) {
        throw completeAndCommitSql.failure(e);
      }
    }

    @Override
    boolean running(Connection c, String storedKey) {
      long key = lockKey(storedKey);
      try (PreparedStatement ps = c.prepareStatement(HELD)) {
        ps.setLong(1, key >>> 32); // a bigint lock is (classid, objid) = (high, low 32 bits), objsubid 1
        ps.setLong(2, key & 0xFFFF_FFFFL);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() && rs.getBoolean(1);
        }
      } catch (SQLException e) {
        throw NamedSql.failure(e, HELD);
      }
    }

    /** The first 64 bits of SHA-256 over the table's name and the stored key. */
    long lockKey(String storedKey) {
      MessageDigest sha = SHA256.get();
      sha.update(lockKeyPrefix);
      byte[] d = sha.digest(storedKey.getBytes(StandardCharsets.UTF_8));
      long h = 0;
      for (int i = 0; i < 8; i++) {
        h = (h << 8) | (d[i] & 0xFF);
      }
      return h;
    }
  }

  /**
   * MariaDB (InnoDB): the claim statement runs with {@code innodb_lock_wait_timeout = 0}, so that meeting
   * another transaction's uncommitted row fails at once (error 1205) instead of waiting; the session's own
   * timeout is put back right after. No hash is involved. An insert may also meet a gap lock that a
   * transaction taking over an expired neighbouring row holds, and is then refused as in progress too.
   */
  static final class InnoDb extends NoWaitClaim {
    private static final String NO_WAIT =
        "SET @idempotent_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = 0";
    private static final String RESTORE = "SET SESSION innodb_lock_wait_timeout = @idempotent_lock_wait";
    /**
     * Before a transaction of the store's own begins: READ COMMITTED for it whatever the session's default
     * (set for the session, put back at once after the claim: a transaction keeps the level it began with),
     * and no idle-transaction timeout while it stays open (put back when it is over).
     */
    private static final String OWN = "SET @idempotent_lock_wait = @@SESSION.innodb_lock_wait_timeout,"
        + " SESSION innodb_lock_wait_timeout = 0, @idempotent_isolation = @@SESSION.tx_isolation,"
        + " SESSION tx_isolation = 'READ-COMMITTED', @idempotent_idle = @@SESSION.idle_transaction_timeout,"
        + " @idempotent_idle_write = @@SESSION.idle_write_transaction_timeout,"
        + " @idempotent_idle_read = @@SESSION.idle_readonly_transaction_timeout,"
        + " SESSION idle_transaction_timeout = 0, SESSION idle_write_transaction_timeout = 0,"
        + " SESSION idle_readonly_transaction_timeout = 0";
    private static final String OWN_CLAIMED = "SET SESSION innodb_lock_wait_timeout = @idempotent_lock_wait,"
        + " SESSION tx_isolation = @idempotent_isolation";
    private static final String OWN_ENDED = "SET SESSION idle_transaction_timeout = @idempotent_idle,"
        + " SESSION idle_write_transaction_timeout = @idempotent_idle_write,"
        + " SESSION idle_readonly_transaction_timeout = @idempotent_idle_read";
    private static final int LOCK_WAIT_TIMEOUT = 1205;

    InnoDb(TableStatements statements) {
      super(statements);
    }

    @Override
    TableStatements.@Nullable Claim claim(Connection c, TableStatements.ClaimRequest r) {
      return claim(c, r, NO_WAIT, RESTORE);
    }

    @Override
    TableStatements.@Nullable Claim claimOwn(Connection c, TableStatements.ClaimRequest r) {
      return claim(c, r, OWN, OWN_CLAIMED);
    }

    @Override
    void ownEnded(Connection c) {
      try (Statement st = c.createStatement()) {
        run(st, OWN_ENDED);
      } catch (SQLException e) {
        throw Connections.failure(e);
      }
    }

    private TableStatements.@Nullable Claim claim(Connection c, TableStatements.ClaimRequest r, String before,
        String after) {
      try (Statement st = c.createStatement()) {
        run(st, before);
        try {
          return statements.claim(c, r);
        } catch (IdempotencyStoreException e) {
          if (errorCode(e) == LOCK_WAIT_TIMEOUT) {
            return TableStatements.BUSY; // only the statement was rolled back: the transaction is as it was
          }
          throw e;
        } finally {
          run(st, after);
        }
      } catch (SQLException e) {
        throw Connections.failure(e);
      }
    }
  }

  /**
   * H2: the key's live row is read first, as a plain read (which never waits for a lock there): a replay
   * or a duplicate is answered by that one statement, before a transaction of the store's own begins.
   * Otherwise the claim's writes run with a lock timeout of 0, so that meeting another transaction's
   * uncommitted row fails at once (SQLState {@code HYT00}), and the session's own timeout is put back right
   * after. The timeout is set on the embedded session itself ({@link H2Sessions}), by SQL only where there
   * is none (a client of an H2 server). No hash is involved.
   */
  static final class H2 extends NoWaitClaim {
    private static final String READ = "SELECT LOCK_TIMEOUT()";
    private final H2Statements h2;

    H2(H2Statements statements) {
      super(statements);
      this.h2 = statements;
    }

    @Override
    TableStatements.@Nullable Claim liveBeforeOwn(Connection c, TableStatements.ClaimRequest r) {
      return h2.liveClaim(c, r);
    }

    @Override
    TableStatements.@Nullable Claim claim(Connection c, TableStatements.ClaimRequest r) {
      TableStatements.Claim live = h2.liveClaim(c, r);
      return live != null ? live : claimAbsent(c, r);
    }

    @Override
    TableStatements.@Nullable Claim claimOwn(Connection c, TableStatements.ClaimRequest r) {
      return claimAbsent(c, r); // liveBeforeOwn has read the key
    }

    private TableStatements.@Nullable Claim claimAbsent(Connection c, TableStatements.ClaimRequest r) {
      org.h2.engine.SessionLocal session = H2Sessions.embedded(c);
      if (session != null) {
        int timeout = session.getLockTimeout();
        session.setLockTimeout(0);
        try {
          return busyOnTimeout(c, r);
        } finally {
          session.setLockTimeout(timeout);
        }
      }
      try (Statement st = c.createStatement()) {
        int timeout;
        try (ResultSet rs = st.executeQuery(READ)) {
          rs.next();
          timeout = rs.getInt(1);
        }
        run(st, "SET LOCK_TIMEOUT 0");
        try {
          return busyOnTimeout(c, r);
        } finally {
          run(st, "SET LOCK_TIMEOUT " + timeout);
        }
      } catch (SQLException e) {
        throw Connections.failure(e);
      }
    }

    private TableStatements.@Nullable Claim busyOnTimeout(Connection c, TableStatements.ClaimRequest r) {
      try {
        return h2.claimAbsent(c, r);
      } catch (IdempotencyStoreException e) {
        if ("HYT00".equals(NamedSql.sqlState(e))) {
          return TableStatements.BUSY;
        }
        throw e;
      }
    }
  }

  private static void run(Statement st, String sql) {
    try {
      st.execute(sql);
    } catch (SQLException e) {
      throw NamedSql.failure(e, sql);
    }
  }

  private static int errorCode(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getErrorCode() != 0) {
        return s.getErrorCode();
      }
    }
    return 0;
  }
}
