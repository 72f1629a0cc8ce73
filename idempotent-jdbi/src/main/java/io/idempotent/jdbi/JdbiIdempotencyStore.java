package io.idempotent.jdbi;

import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallScopedClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

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
public final class JdbiIdempotencyStore implements IdempotencyStore, CallScopedClaims, KeyLimits, BatchClaims {

  /** The longest key kept, in characters: the length of the key column. */
  public static final int MAX_KEY_LENGTH = TableStatements.KEY_COLUMN_CHARS;

  /** The databases the store runs on (those its tests run on), for error messages. */
  static final String SUPPORTED_DATABASES = "supported: PostgreSQL 9.5+ (jdbc:postgresql:), MariaDB 10.5+"
      + " (jdbc:mariadb:, MariaDB Connector/J) and H2 2.x (jdbc:h2:); MySQL is not supported";

  /** The keys the table keeps as given ({@link #keyRules()}). */
  public static final StoreKeyRules KEY_RULES =
      StoreKeyRules.any().maxChars(MAX_KEY_LENGTH).withoutNul().withoutLoneSurrogates();

  /** Longest duration written: a century. Longer ones (ChronoUnit.FOREVER) would overflow the column. */
  private static final long MAX_MICROS = Duration.ofDays(36_525).toNanos() / 1_000;

  private final Jdbi jdbi;
  /** Where the store's own units of work run: the data source when it was given one, else the Jdbi. */
  private final Connections connections;
  private final Duration operationTimeout;
  private final SqlDialect sqlDialect;
  private final TableStatements statements;
  private final TransactionMode mode;
  private final boolean relaxedClaimDurability;
  private final List<AutoCloseable> owned;
  /** Finds the transaction the calling thread has open on the store's database, in every mode. */
  private final CallerTransactions transactions;
  /** The claims whose transaction is open: the caller's (transactional calls) or the store's own (scoped modes). */
  private final TransactionScopedClaims scoped;
  /** The store's own units of work, committed at once. */
  private final CommittedWork work;
  /** Where a method call's claim goes: the mode's routing. */
  private final CallRouting routing;
  private final TableBatches batches;
  private final TableSetup setup;

  /**
   * @param relaxedClaim claims commit without waiting for durability (PostgreSQL only; the builder
   *     rejects it for other databases)
   */
  static TableStatements statements(SqlDialect dialect, TableName table, boolean relaxedClaim) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresStatements(table, relaxedClaim);
      case MARIADB -> new MariaDbStatements(table);
      case H2 -> new H2Statements(table);
    };
  }

  private JdbiIdempotencyStore(Builder b, SqlDialect sqlDialect) {
    this.jdbi = b.jdbi;
    this.operationTimeout = b.operationTimeout;
    this.connections = b.dataSource != null
        ? Connections.of(b.dataSource, b.operationTimeout) : Connections.of(b.jdbi, b.operationTimeout);
    this.sqlDialect = sqlDialect;
    this.statements = statements(sqlDialect, b.table, b.relaxedClaimDurability);
    this.mode = b.mode;
    this.relaxedClaimDurability = b.relaxedClaimDurability;
    this.owned = new ArrayList<>(b.owned);
    this.transactions = b.callerTransactions != null ? b.callerTransactions : JoinedTransactions.on(jdbi);
    this.scoped = new TransactionScopedClaims(connections, statements, NoWaitClaim.of(sqlDialect, statements), transactions);
    this.work = new CommittedWork(connections, statements);
    this.routing = CallRouting.of(mode, transactions, scoped, work, b.requireTransaction, this);
    this.batches = new TableBatches(KEY_RULES, statements, work, routing, scoped);
    this.setup = new TableSetup(connections, statements, sqlDialect);
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
    return statements.table.qualified();
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
    setup.createSchema();
  }

  /** Claims {@code key} on a connection of the store's own and commits at once, in every mode (one-time tokens). */
  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return work.claim(new TableStatements.ClaimRequest(KEY_RULES.requireAccepted(key), fingerprint, owner,
        micros(lease)));
  }

  /**
   * Claims for a method call where its declared {@code effects} (or, undeclared, the mode) say its outcome
   * belongs (see docs/DESIGN.md, Transactions): a transactional call writes claim and outcome in the
   * transaction the calling thread has open on this store's database; any other call records them on its
   * own, committed at once ({@link TransactionMode#INDEPENDENT}, {@link TransactionMode#JOINED}) or in a
   * transaction of the store's own that the outcome commits (the scoped modes). Before anything is written
   * it refuses a transactional call with no transaction to join (unless {@link Builder#requireTransaction}
   * allows it) and an undeclared call made inside a transaction in a mode that does not join one: which of
   * the two the method needs only the application knows.
   */
  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    String storedKey = KEY_RULES.requireAccepted(key);
    ClaimResult result = routing.claim(new TableStatements.ClaimRequest(storedKey, fingerprint, owner, micros(lease)),
        effects);
    return new TableClaim(this, this::complete, scoped, storedKey, owner, result);
  }

  /** Records the outcome, in the claim's transaction where it has one open (see {@link CallClaim#complete}). */
  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return complete(KEY_RULES.requireAccepted(key), owner, outcome, ttl, false, null);
  }

  /**
   * @param detached the outcome arrived after the call returned: it commits on its own in every mode, since
   *     the completing thread's transaction (if it has one) is not the call's
   * @param call the call's claim, told the caller's transaction the outcome was written in; null for none
   */
  boolean complete(String storedKey, String owner, StoredOutcome outcome, Duration ttl, boolean detached,
      @Nullable TableClaim call) {
    OutcomeFields columns = OutcomeFields.of(outcome); // encodes first: a failure leaves the row untouched
    long ttlMicros = micros(ttl);
    TransactionScopedClaims.Completed done = scoped.complete(storedKey, owner, columns, ttlMicros, detached);
    if (done != null) {
      if (call != null) {
        call.joined = done.joined();
      }
      return done.completed();
    }
    // a claim committed on its own (or one whose transaction has ended, its row committed); the method has
    // run, so the outcome waits its turn for a connection even while the store's other operations pause
    return work.repeating(c -> statements.complete(c, storedKey, owner, columns, ttlMicros), false) == 1;
  }

  /** See {@link TableBatches#claimAll}. */
  @Override
  public List<ClaimResult> claimAll(List<BatchClaims.Claim> claims, String owner, Duration lease) {
    return batches.claimAll(claims, owner, micros(lease));
  }

  /** See {@link TableBatches#completeAll}. */
  @Override
  public boolean[] completeAll(List<BatchClaims.Completion> completions, String owner, Duration ttl) {
    return batches.completeAll(completions, owner, micros(ttl));
  }

  @Override
  public boolean release(String key, String owner) {
    String storedKey = KEY_RULES.requireAccepted(key);
    batches.refuseReleaseInCallerTransaction(owner);
    Boolean released = scoped.release(storedKey, owner);
    if (released != null) {
      return released;
    }
    return work.repeating(c -> statements.release(c, storedKey, owner)) == 1;
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    String storedKey = KEY_RULES.requireAccepted(key);
    if (scoped.renew(owner) != null) {
      return true;
    }
    // a running call's claim: not refused by the pause, so that an exhausted pool cannot starve it past its lease
    return work.repeating(c -> statements.renew(c, storedKey, owner, micros(lease)), false) == 1;
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return scoped.find(KEY_RULES.requireAccepted(key), work::repeating);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    if (maxRecords <= 0) {
      return 0;
    }
    return work.repeating(c -> statements.purgeExpired(c, maxRecords));
  }

  @Override
  public StoreKeyRules keyRules() {
    return KEY_RULES;
  }

  /** Closes what this store opened itself; a {@code Jdbi} or {@code DataSource} passed in stays open. */
  @Override
  public synchronized void close() {
    transactions.stop();
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
    private final @Nullable DataSource dataSource;
    private Duration operationTimeout = Connections.DEFAULT_OPERATION_TIMEOUT;
    private TableName table = TableName.of(SchemaScript.DEFAULT_TABLE);
    private @Nullable SqlDialect dialect;
    private TransactionMode mode = TransactionMode.INDEPENDENT;
    private boolean createSchema;
    private boolean relaxedClaimDurability;
    private boolean requireTransaction = true;
    private @Nullable CallerTransactions callerTransactions;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private Builder(Jdbi jdbi, @Nullable DataSource dataSource) {
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
     * Where the store finds the transaction the calling thread has open on its database, in every mode: a
     * transactional call writes its claim and outcome there, and an undeclared one made inside it is refused
     * unless the mode joins transactions. For transactions that another framework manages on the store's
     * database, such as Spring's. By default the store watches its {@code Jdbi}'s handles.
     */
    public Builder callerTransactions(CallerTransactions transactions) {
      this.callerTransactions = Objects.requireNonNull(transactions, "transactions");
      return this;
    }

    /**
     * Whether a transactional call (declared {@link Effects#TRANSACTIONAL}, or undeclared in a joined mode)
     * made with no transaction open on the store's database is refused before its method runs (default
     * true). With false, such a call records its outcome on its own, as an {@link Effects#EXTERNAL} one
     * does: for applications that call the same methods both inside and outside a transaction. A
     * transaction the store cannot see (on another {@code Jdbi} instance, or managed outside JDBI without
     * {@link #callerTransactions}) is never joined.
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
      SqlDialect d = dialect != null ? dialect : DatabaseProbe.detect(jdbi);
      if (relaxedClaimDurability && mode.transactionScoped()) {
        throw new IdempotencyConfigurationException("Relaxed claim durability does not apply to " + mode + " mode: the"
            + " claim commits with the outcome, and the outcome's commit stays durable");
      }
      if (relaxedClaimDurability && d != SqlDialect.POSTGRESQL) {
        throw new IdempotencyConfigurationException("Relaxed claim durability needs PostgreSQL (synchronous_commit); the"
            + " database is " + d);
      }
      JdbiIdempotencyStore store = new JdbiIdempotencyStore(this, d);
      DatabaseProbe.warnIfThePoolWaitsLonger(dataSource, operationTimeout);
      if (createSchema) {
        store.createSchema();
      }
      store.setup.checkKeyColumn();
      return store;
    }
  }
}
