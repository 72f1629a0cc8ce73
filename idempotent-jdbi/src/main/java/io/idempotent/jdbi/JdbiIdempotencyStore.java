package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * An {@link IdempotencyStore} on one SQL table, shared by every instance of an application: the
 * database's primary key decides who runs, the database's clock decides when a lease or a result has
 * expired. Works with PostgreSQL, MariaDB and H2 (see {@link SqlDialect}).
 *
 * <pre>{@code
 * JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
 *     .table("idempotency_record")
 *     .transactionMode(TransactionMode.INDEPENDENT)
 *     .createSchema(true)
 *     .build();
 * Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
 * }</pre>
 *
 * <p>Every claim writes through one atomic statement, and never decides to write from an earlier read: on
 * PostgreSQL and MariaDB the claim is that one statement, and H2 reads first, then inserts a fresh key
 * (an {@code INSERT} the primary key refuses if the key is there), or writes with one {@code MERGE} that
 * leaves a live row alone and reads again (see docs/DESIGN.md, Stores). Complete, release and renew change
 * a row only while the caller's owner token
 * still holds it. Keys are kept as given; the engine composes them to obey {@link #KEY_RULES} (at most
 * {@value #MAX_KEY_LENGTH} characters, no U+0000, which PostgreSQL text cannot hold, and no lone surrogate,
 * which no driver sends as it is), and the store refuses a key that does not. See {@link TransactionMode}
 * for how writes relate to the caller's own transaction.
 *
 * <p>Thread-safe. {@link #close()} closes only what the store itself opened (a pool made by
 * {@link JdbiStoreProvider}, a purge scheduler), never a {@code Jdbi} or {@code DataSource} passed in.
 */
public final class JdbiIdempotencyStore implements IdempotencyStore, AutoCloseable {

  /** The longest key kept, in characters: the length of the key column. */
  public static final int MAX_KEY_LENGTH = 255;

  /** The databases the store runs on (those its tests run on), for error messages. */
  static final String SUPPORTED_DATABASES = "supported: PostgreSQL 9.5+ (jdbc:postgresql:), MariaDB 10.5+"
      + " (jdbc:mariadb:, MariaDB Connector/J) and H2 2.x (jdbc:h2:); MySQL is not supported";

  /** The keys the table keeps as given ({@link #keyRules()}). */
  public static final StoreKeyRules KEY_RULES =
      StoreKeyRules.any().maxChars(MAX_KEY_LENGTH).withoutNul().withoutLoneSurrogates();

  private static final System.Logger LOG = System.getLogger("io.idempotent.jdbi");
  private static final int CLAIM_ATTEMPTS = 20;
  /** Longest duration written: a century. Longer ones (ChronoUnit.FOREVER) would overflow the column. */
  private static final long MAX_MICROS = Duration.ofDays(36_525).toNanos() / 1_000;

  private final Jdbi jdbi;
  /** Where the store's own units of work run: the data source when it was given one, else the Jdbi. */
  private final Connections connections;
  private final Duration operationTimeout;
  private final SqlDialect sqlDialect;
  private final Dialect dialect;
  private final TransactionMode mode;
  private final boolean relaxedClaimDurability;
  private final List<AutoCloseable> owned;
  /** In the modes that join the caller's transaction, finds it; null otherwise. */
  private final CallerTransactions transactions;
  /** In the transaction-scoped modes, the claims whose transaction is open; null otherwise. */
  private final TransactionScopedClaims scoped;
  /** In {@link TransactionMode#JOINED} mode, whether a call with no transaction to join is refused. */
  private final boolean requireTransaction;
  private final AtomicBoolean warnedNoTransaction = new AtomicBoolean();

  private JdbiIdempotencyStore(Builder b, SqlDialect sqlDialect) {
    this.jdbi = b.jdbi;
    this.operationTimeout = b.operationTimeout;
    this.connections = b.dataSource != null
        ? Connections.of(b.dataSource, b.operationTimeout) : Connections.of(b.jdbi, b.operationTimeout);
    this.sqlDialect = sqlDialect;
    this.dialect = Dialect.of(sqlDialect, b.table, b.relaxedClaimDurability);
    this.mode = b.mode;
    this.relaxedClaimDurability = b.relaxedClaimDurability;
    this.owned = new ArrayList<>(b.owned);
    this.transactions = !mode.joinsCaller() ? null
        : b.callerTransactions != null ? b.callerTransactions : JoinedTransactions.on(jdbi);
    this.requireTransaction = b.requireTransaction;
    this.scoped = !mode.transactionScoped() ? null : new TransactionScopedClaims(
        connections, dialect, NoWaitClaim.of(sqlDialect, dialect), transactions, requireTransaction);
  }

  /** A builder for a store on {@code jdbi}; use the same {@code Jdbi} as the application for {@link TransactionMode#JOINED}. */
  public static Builder builder(Jdbi jdbi) {
    return new Builder(Objects.requireNonNull(jdbi, "jdbi"), null);
  }

  /**
   * A builder for a store on {@code dataSource}. Its statements then run on plain JDBC connections
   * borrowed from it, with no handle around them: the leanest way to run the store in
   * {@link TransactionMode#INDEPENDENT} mode.
   */
  public static Builder builder(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    return new Builder(Jdbi.create(dataSource), dataSource);
  }

  /** The dialect in use (detected or set). */
  public SqlDialect dialect() {
    return sqlDialect;
  }

  /** The table's name as used in SQL. */
  public String table() {
    return dialect.table.qualified();
  }

  public TransactionMode transactionMode() {
    return mode;
  }

  /** Whether claims commit without waiting for durability (see {@link Builder#relaxedClaimDurability}). */
  public boolean relaxedClaimDurability() {
    return relaxedClaimDurability;
  }

  /** How long one of the store's own operations waits for a connection, and for each reply (see {@link Builder#operationTimeout}). */
  public Duration operationTimeout() {
    return operationTimeout;
  }

  /** The {@code Jdbi} the store runs on. */
  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * Creates the table and its expiry index unless the table exists; safe to call again and from several
   * instances. An existing table is left alone without any DDL, so a database user with only the rights
   * to read and write it (the table made by a migration or an administrator) may call this too.
   */
  public void createSchema() {
    if (tableExists()) {
      return;
    }
    List<String> statements = SchemaScript.statements(sqlDialect, dialect.table);
    for (int attempt = 1; ; attempt++) {
      try {
        connections.run(c -> {
          try (var statement = c.createStatement()) {
            for (String sql : statements) {
              try {
                statement.execute(sql);
              } catch (SQLException e) {
                throw NamedSql.failure(e, sql);
              }
            }
          }
          return null;
        });
        return;
      } catch (RuntimeException e) {
        // instances starting together may race on CREATE … IF NOT EXISTS (PostgreSQL's catalog is not
        // locked by it); the statements succeed once the winner has committed
        if (attempt >= 3) {
          throw e;
        }
      }
    }
  }

  /**
   * Refuses an existing table whose key column would let distinct keys share a row (a collation that
   * ignores case or trailing spaces) or is not the primary key, and (PostgreSQL, H2) one made by an earlier
   * version without the {@code purge_after} column; the message gives the DDL that fixes it.
   */
  private void checkKeyColumn() {
    String problem;
    try {
      problem = connections.run(c -> {
        String keyColumn = dialect.keyColumnProblem(c);
        return keyColumn != null ? keyColumn : dialect.layoutProblem(c);
      });
    } catch (RuntimeException e) {
      // an unreachable database must not stop the application from starting: calls fail closed until
      // it is back, and the table is checked by the next start
      LOG.log(Level.WARNING, "Could not check the key column of the idempotency table " + table(), e);
      return;
    }
    if (problem != null) {
      throw new IdempotencyConfigurationException("The idempotency table " + table() + " cannot be used: " + problem);
    }
  }

  /** Whether the table can be read: a query that returns no row, so it costs no scan. */
  private boolean tableExists() {
    String sql = "SELECT 1 FROM " + dialect.table.qualified() + " WHERE 1 = 0";
    try {
      return connections.run(c -> {
        try (var statement = c.createStatement()) {
          statement.executeQuery(sql); // closing the statement closes its result set
          return true;
        }
      });
    } catch (RuntimeException e) {
      return false; // missing (or unreadable: creating it then reports what is wrong)
    }
  }

  /**
   * In {@link TransactionMode#JOINED} mode, refuses to run a method with no transaction open on this
   * store's {@code Jdbi} on the calling thread (unless {@link Builder#requireTransaction} allows it): its caller
   * expects the outcome to commit or roll back with its writes, and the store cannot see a transaction
   * opened on another {@code Jdbi} instance, by another library on the same database, or on another
   * thread. Refusing is the only way not to commit the outcome on its own behind the caller's back.
   */
  @Override
  public void checkCallingThread() {
    if (mode == TransactionMode.JOINED && requireTransaction && transactions.current() == null) {
      throw new IdempotencyConfigurationException("The idempotency store " + this + " is in JOINED mode, but the"
          + " calling thread has no " + transactions.joinable() + ", so the outcome could not commit or"
          + " roll back together with the method's writes; the method did not run. Call it inside such a"
          + " transaction, use TransactionMode.INDEPENDENT, or build the store with"
          + " requireTransaction(false) (property idempotent.jdbi.require-transaction=false) to record such"
          + " calls on their own.");
    }
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    Dialect.ClaimRequest request = new Dialect.ClaimRequest(
        KEY_RULES.requireAccepted(key), key, fingerprint, owner, micros(lease));
    if (mode == TransactionMode.JOINED) {
      CallerTransactions.Transaction joined = transactions.current(); // refuses an ambiguous thread first
      if (joined != null && joined.isJoined(request.storedKey())) {
        return ClaimResult.existing(inProgressInThisTransaction(joined, request));
      }
    }
    for (int attempt = 1; ; attempt++) {
      Dialect.Claim claim;
      try {
        claim = connections.run(c -> dialect.claim(c, request));
      } catch (RuntimeException e) {
        if (attempt >= CLAIM_ATTEMPTS || !dialect.isRetryable(sqlState(e))) {
          throw e;
        }
        claim = null;
        pause(attempt);
      }
      if (claim != null) {
        if (!claim.claimed()) {
          return ClaimResult.existing(claim.existing());
        }
        return claim.takenOver() ? ClaimResult.takenOver() : ClaimResult.acquired();
      }
      if (attempt >= CLAIM_ATTEMPTS) {
        throw new IllegalStateException("The claim did not settle after " + attempt + " attempts under contention");
      }
    }
  }

  /**
   * In the transaction-scoped modes, claims in the transaction that the call's outcome then commits (see
   * {@link TransactionMode#TRANSACTION_SCOPED}); otherwise as {@link #claim}, which in every mode commits at
   * once (one-time tokens claim that way).
   */
  @Override
  public ClaimResult claimForCall(String key, String fingerprint, String owner, Duration lease) {
    if (scoped == null) {
      return claim(key, fingerprint, owner, lease);
    }
    return scoped.claim(new Dialect.ClaimRequest(KEY_RULES.requireAccepted(key), key, fingerprint, owner,
        micros(lease)));
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return complete(key, owner, outcome, ttl, mode.joinsCaller());
  }

  /**
   * Commits the outcome on its own in every mode: the method's result came later, on a thread whose
   * transaction (if it has one) is not the call's.
   */
  @Override
  public boolean completeDetached(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return complete(key, owner, outcome, ttl, false);
  }

  private boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl, boolean join) {
    OutcomeFields columns = OutcomeFields.of(outcome); // encodes first: a failure leaves the row untouched
    String storedKey = KEY_RULES.requireAccepted(key);
    long ttlMicros = micros(ttl);
    if (scoped != null) {
      Boolean done = scoped.complete(storedKey, owner, columns, ttlMicros, !join);
      if (done != null) {
        return done;
      }
      join = false; // the claim's transaction has ended (or was never this store's): the row is committed
    }
    if (join) {
      CallerTransactions.Transaction h;
      try {
        h = transactions.current();
      } catch (IdempotencyStoreException e) {
        // the method opened a second transaction: which one holds its writes is unknown, so none may
        // commit them without their record
        throw new IdempotencyRollbackRequiredException(e.getMessage(), e);
      }
      if (h == null) {
        if (!requireTransaction) {
          warnNoTransaction();
        }
      } else if (outcome.kind() != StoredOutcome.Kind.FAILURE) {
        // noted first, so that a transaction ending in anything but a commit (even after this update failed)
        // frees the key
        h.joining(storedKey, () -> releaseUncommitted(storedKey, owner));
        return completeInCallersTransaction(h, storedKey, owner, columns, ttlMicros);
      }
      // a final failure is the method's outcome whatever becomes of the caller's transaction (which the
      // exception usually rolls back): it is recorded on a connection of its own and committed at once
    }
    return repeating(c -> dialect.complete(c, storedKey, owner, columns, ttlMicros)) == 1;
  }

  /**
   * Runs one of the store's own units of work, repeating it after a serialization failure or a deadlock
   * (SQLState {@code 40001}, {@code 40P01}; MariaDB's deadlock 1213 reports {@code 40001}). Sessions that
   * default to {@code REPEATABLE READ} or {@code SERIALIZABLE} raise them even for one-statement
   * transactions. Repeating is safe: such a failure rolled the unit back, and every write is fenced by
   * the owner token (or, for a purge, decided again from the rows as they are then).
   */
  private <R> R repeating(Connections.Work<R> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connections.run(work);
      } catch (RuntimeException e) {
        if (attempt >= CLAIM_ATTEMPTS || !dialect.isRetryable(sqlState(e))) {
          throw e;
        }
        pause(attempt);
      }
    }
  }

  /**
   * A second claim of a key whose outcome this very transaction has written: the row is locked by the
   * caller's own transaction, which a claim on another connection would wait for until the database gives
   * up (or forever). It is answered at once as in progress, which it is for everyone outside.
   */
  private IdempotencyRecord inProgressInThisTransaction(
      CallerTransactions.Transaction h, Dialect.ClaimRequest request) {
    StoredRow row;
    try {
      row = dialect.find(h.connection(), request.storedKey());
    } catch (RuntimeException e) {
      row = null;
    }
    IdempotencyRecord seen = row == null ? null : row.toRecord(request.key());
    return IdempotencyRecord.inProgress(request.key(),
        seen != null ? seen.fingerprint() : request.fingerprint(), seen != null ? seen.owner() : null);
  }

  private void warnNoTransaction() {
    if (warnedNoTransaction.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "The idempotency store is in JOINED mode, but a call completed with no transaction"
          + " open on the calling thread on the store's Jdbi; its outcome was committed on its own, as in"
          + " INDEPENDENT mode (a transaction on another Jdbi instance, or on another thread, is not seen)."
          + " Reported once.");
    }
  }

  /**
   * The caller's transaction holds the method's writes: it may commit only together with the outcome.
   * When the outcome cannot be written — the claim was lost to another caller after the lease ran out,
   * or the statement failed (which MariaDB and H2 would let the transaction survive) — this throws, so
   * that the exception reaches the caller and its transaction rolls back instead of committing the
   * writes a second time, or without their record.
   */
  private boolean completeInCallersTransaction(
      CallerTransactions.Transaction h, String storedKey, String owner, OutcomeFields columns, long ttlMicros) {
    int updated;
    try {
      updated = dialect.complete(h.connection(), storedKey, owner, columns, ttlMicros);
    } catch (RuntimeException e) {
      throw new IdempotencyRollbackRequiredException(
          "Could not record the outcome inside the caller's transaction; the transaction must roll back so"
              + " that its writes are not committed without their record", e);
    }
    if (updated != 1) {
      throw new IdempotencyRollbackRequiredException(
          "The claim was lost before its outcome could be recorded inside the caller's transaction (its lease"
              + " ran out and another caller took over, or the transaction cannot see the claim); the"
              + " transaction must roll back so that its writes are not committed twice", null);
    }
    return true;
  }

  private void releaseUncommitted(String storedKey, String owner) {
    try {
      repeating(c -> dialect.release(c, storedKey, owner));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "The caller's transaction ended without committing, but its idempotency claim could"
          + " not be released; the key stays in progress until its lease expires", e);
    }
  }

  @Override
  public boolean release(String key, String owner) {
    String storedKey = KEY_RULES.requireAccepted(key);
    if (scoped != null) {
      Boolean released = scoped.release(storedKey, owner);
      if (released != null) {
        return released;
      }
    }
    return repeating(c -> dialect.release(c, storedKey, owner)) == 1;
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    String storedKey = KEY_RULES.requireAccepted(key);
    if (scoped != null && scoped.renew(owner) != null) {
      return true;
    }
    return repeating(c -> dialect.renew(c, storedKey, owner, micros(lease))) == 1;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    String storedKey = KEY_RULES.requireAccepted(key);
    if (scoped != null) {
      return scoped.find(storedKey, key);
    }
    StoredRow row = repeating(c -> dialect.find(c, storedKey));
    return Optional.ofNullable(row).map(r -> r.toRecord(key));
  }

  @Override
  public int purgeExpired(int maxRecords) {
    if (maxRecords <= 0) {
      return 0;
    }
    return repeating(c -> dialect.purgeExpired(c, maxRecords));
  }

  /**
   * In {@link TransactionMode#JOINED} mode, when the calling thread has a transaction open on this
   * store's {@code Jdbi} (the one {@link #complete} joined), runs {@code action} after that transaction
   * commits and never if it rolls back; otherwise, and always in {@link TransactionMode#INDEPENDENT}
   * mode, where every write has committed by the time it returns, runs it now.
   */
  @Override
  public void afterCommit(Runnable action) {
    if (mode.joinsCaller()) {
      // the same lookup as complete()
      CallerTransactions.Transaction joined = transactions.current();
      if (joined != null) {
        joined.afterCommit(action);
        return;
      }
    }
    action.run();
  }

  @Override
  public StoreKeyRules keyRules() {
    return KEY_RULES;
  }

  /** Closes what this store opened itself; a {@code Jdbi} or {@code DataSource} passed in stays open. */
  @Override
  public synchronized void close() {
    if (transactions != null) {
      transactions.stop();
    }
    RuntimeException failure = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("Could not close the idempotency store", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    owned.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /** Adds a resource that {@link #close()} closes (a scheduler started after the store was built). */
  synchronized void own(AutoCloseable resource) {
    owned.add(resource);
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L + Math.min(attempt * 5L, 50L)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while repeating a statement of the idempotency store", e);
    }
  }

  static long micros(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    if (d.compareTo(Duration.ofDays(36_525)) >= 0) {
      return MAX_MICROS;
    }
    return d.toNanos() / 1_000;
  }

  @Override
  public String toString() {
    return "JdbiIdempotencyStore[" + sqlDialect + ", table=" + table() + ", " + mode
        + (relaxedClaimDurability ? ", relaxed claims" : "") + "]";
  }

  /**
   * Builds a {@link JdbiIdempotencyStore}. {@link #build()} connects once to detect the dialect (unless
   * set) and, if asked, to create the schema. Not thread-safe; the store it builds is.
   */
  public static final class Builder {
    private final Jdbi jdbi;
    /** The data source the store was built on, or null when it was built on a {@code Jdbi}. */
    private final DataSource dataSource;
    private Duration operationTimeout = Connections.DEFAULT_OPERATION_TIMEOUT;
    private TableName table = TableName.of(SchemaScript.DEFAULT_TABLE);
    private SqlDialect dialect;
    private TransactionMode mode = TransactionMode.INDEPENDENT;
    private boolean createSchema;
    private boolean relaxedClaimDurability;
    private boolean requireTransaction = true;
    private CallerTransactions callerTransactions;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private Builder(Jdbi jdbi, DataSource dataSource) {
      this.jdbi = jdbi;
      this.dataSource = dataSource;
    }

    /**
     * How long one of the store's own operations may wait (default 5 s): for a connection from the pool,
     * whatever the pool's own timeout, and, where the driver supports {@link java.sql.Connection#setNetworkTimeout},
     * for each reply of the database. A store that cannot reach its database then fails within it — a claim
     * fails closed, so nothing runs; an outcome that cannot be recorded is tried again in the background —
     * instead of holding the caller for as long as the pool would wait. Statements in the caller's own
     * transaction (the JOINED modes) are not bounded by it.
     *
     * @throws IllegalArgumentException if {@code timeout} is not between 100 ms and 1 hour
     */
    public Builder operationTimeout(Duration timeout) {
      this.operationTimeout = checkOperationTimeout(Objects.requireNonNull(timeout, "timeout"));
      return this;
    }

    static Duration checkOperationTimeout(Duration timeout) {
      if (timeout.compareTo(Duration.ofMillis(100)) < 0 || timeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("the operation timeout must be between 100 ms and 1 hour, not " + timeout);
      }
      return timeout;
    }

    /**
     * The table name, optionally schema-qualified; letters, digits and underscores only, and no part a word
     * that PostgreSQL, MariaDB or H2 reserves ({@code order}, {@code select}, {@code user}).
     *
     * @throws IllegalArgumentException if the name is not a plain identifier, or a part is a reserved word
     */
    public Builder table(String name) {
      this.table = TableName.of(name);
      return this;
    }

    /** The dialect, instead of detecting it from the connection's product name. */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * {@link TransactionMode#INDEPENDENT} (default), {@link TransactionMode#JOINED},
     * {@link TransactionMode#TRANSACTION_SCOPED} or {@link TransactionMode#JOINED_TRANSACTION_SCOPED}.
     */
    public Builder transactionMode(TransactionMode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Where a store that joins its caller's transaction finds it (and sets the mode to JOINED, unless it is
     * {@link TransactionMode#JOINED_TRANSACTION_SCOPED} already): for transactions that another framework manages on the store's database, such as Spring's.
     * By default the store watches its {@code Jdbi}'s handles.
     */
    public Builder callerTransactions(CallerTransactions transactions) {
      this.callerTransactions = Objects.requireNonNull(transactions, "transactions");
      if (!mode.joinsCaller()) {
        this.mode = TransactionMode.JOINED;
      }
      return this;
    }

    /**
     * In {@link TransactionMode#JOINED} mode, whether a call made with no transaction open on the store's
     * {@code Jdbi} is refused before its method runs (default true). With false, such a call records its
     * outcome on its own, as in {@link TransactionMode#INDEPENDENT} mode, and a warning is logged once:
     * for applications that call the same methods both inside and outside a transaction. Either way a
     * transaction on another {@code Jdbi} instance, or one managed outside JDBI, is never joined.
     */
    public Builder requireTransaction(boolean require) {
      this.requireTransaction = require;
      return this;
    }

    /** Whether {@link #build()} creates the table and index if they are missing (default false). */
    public Builder createSchema(boolean create) {
      this.createSchema = create;
      return this;
    }

    /**
     * Lets a claim commit without waiting for its WAL flush (PostgreSQL's {@code synchronous_commit =
     * off}, for the claim statement's own transaction only; default false). A first call on PostgreSQL
     * then waits for one flush (its completion) instead of two.
     *
     * <p><b>The trade:</b> a claim acknowledged just before the database server crashes may be lost
     * with the last fraction of a second of WAL (up to three times {@code wal_writer_delay}); a
     * duplicate arriving after the restart then finds no record and runs the method again, while the
     * first call may have run too. Completions, releases and renewals stay durable, so a call whose
     * outcome was recorded is never run twice because of this option; a crash of the application alone
     * loses nothing. Use it when a rare second execution after a database crash is acceptable.
     *
     * @throws IdempotencyConfigurationException from {@link #build()} on a database other than PostgreSQL, which
     *     has no per-transaction durability setting
     */
    public Builder relaxedClaimDurability(boolean relaxed) {
      this.relaxedClaimDurability = relaxed;
      return this;
    }

    /** A resource the store closes when it is closed (e.g. the pool behind the {@code Jdbi}). */
    Builder owning(AutoCloseable resource) {
      owned.add(resource);
      return this;
    }

    public JdbiIdempotencyStore build() {
      SqlDialect d = dialect != null ? dialect : detect();
      if (relaxedClaimDurability && mode.transactionScoped()) {
        throw new IdempotencyConfigurationException("Relaxed claim durability does not apply to " + mode + " mode: the"
            + " claim commits with the outcome, and the outcome's commit stays durable");
      }
      if (relaxedClaimDurability && d != SqlDialect.POSTGRESQL) {
        throw new IdempotencyConfigurationException("Relaxed claim durability needs PostgreSQL (synchronous_commit); the"
            + " database is " + d);
      }
      JdbiIdempotencyStore store = new JdbiIdempotencyStore(this, d);
      warnIfThePoolWaitsLonger();
      if (createSchema) {
        store.createSchema();
      }
      store.checkKeyColumn();
      return store;
    }

    /**
     * A HikariCP pool checks an idle connection on the thread that borrows it, and no interrupt ends that
     * check: on a server that stopped answering, a borrower waits as long as the pool's connection timeout
     * (30 s by default), whatever the store's operation timeout. Said once, when the store is built.
     */
    private void warnIfThePoolWaitsLonger() {
      if (dataSource == null || !dataSource.getClass().getName().equals("com.zaxxer.hikari.HikariDataSource")) {
        return;
      }
      long poolMillis;
      try {
        poolMillis = (Long) dataSource.getClass().getMethod("getConnectionTimeout").invoke(dataSource);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return;
      }
      if (poolMillis == 0 || poolMillis > operationTimeout.toMillis()) {
        LOG.log(Level.WARNING, "The idempotency store's pool (" + dataSource + ") waits up to "
            + (poolMillis == 0 ? "forever" : poolMillis + " ms") + " for a connection, longer than the store's"
            + " operation timeout of " + operationTimeout + ": on a database server that stops answering, the"
            + " pool checks its idle connections on the calling thread for that long before the store can give"
            + " up. Set the pool's connectionTimeout to the operation timeout or less (Spring Boot:"
            + " spring.datasource.hikari.connection-timeout), or give the store a pool of its own");
      }
    }

    private SqlDialect detect() {
      try (Handle h = jdbi.open()) {
        var meta = h.getConnection().getMetaData();
        String product = meta.getDatabaseProductName();
        SqlDialect d = SqlDialect.fromProductName(product).orElseThrow(() -> new IdempotencyConfigurationException(
            "Unsupported database '" + product + "'; " + SUPPORTED_DATABASES));
        if (d == SqlDialect.MARIADB && !atLeast(meta.getDatabaseMajorVersion(), meta.getDatabaseMinorVersion(), 10, 5)) {
          throw new IdempotencyConfigurationException("MariaDB " + meta.getDatabaseProductVersion()
              + " is not supported: the store needs MariaDB 10.5 or later (INSERT … RETURNING)");
        }
        return d;
      } catch (SQLException e) {
        throw new IllegalStateException("Cannot read the database's metadata to detect its dialect", e);
      }
    }

    private static boolean atLeast(int major, int minor, int wantMajor, int wantMinor) {
      return major > wantMajor || (major == wantMajor && minor >= wantMinor);
    }
  }
}
