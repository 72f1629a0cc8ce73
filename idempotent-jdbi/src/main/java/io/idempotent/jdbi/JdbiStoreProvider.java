package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Provides the table store as {@code jdbi}, on a HikariCP pool built from properties under
 * {@code idempotent.jdbi.}:
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><td>{@code url}</td><td>JDBC URL; default: an embedded H2 file database at {@link #defaultH2Path()}</td></tr>
 *   <tr><td>{@code user}, {@code password}</td><td>credentials</td></tr>
 *   <tr><td>{@code pool-size}</td><td>maximum connections (default 10)</td></tr>
 *   <tr><td>{@code operation-timeout}</td><td>how long one of the store's operations waits for a connection and
 *       for each reply (default PT5S; see {@link JdbiIdempotencyStore.Builder#operationTimeout})</td></tr>
 *   <tr><td>{@code table}</td><td>table name (default {@code idempotency_record})</td></tr>
 *   <tr><td>{@code mode}</td><td>{@code independent} (default) or {@code joined}</td></tr>
 *   <tr><td>{@code require-transaction}</td><td>joined mode: refuse a call with no transaction open on the
 *       store's {@code Jdbi} (default true; see {@link JdbiIdempotencyStore.Builder#requireTransaction})</td></tr>
 *   <tr><td>{@code claim-durability}</td><td>{@code durable} (default) or {@code relaxed} (PostgreSQL only; see
 *       {@link JdbiIdempotencyStore.Builder#relaxedClaimDurability})</td></tr>
 *   <tr><td>{@code create-schema}</td><td>create the table if missing (default true)</td></tr>
 *   <tr><td>{@code purge-interval}</td><td>how often expired rows are deleted (default PT10M; PT0S: never)</td></tr>
 *   <tr><td>{@code purge-batch-size}</td><td>rows per delete statement (default 500)</td></tr>
 * </table>
 *
 * HikariCP ({@code com.zaxxer:HikariCP}) and, for the embedded default, H2 ({@code com.h2database:h2}) are
 * optional dependencies of this module: without them {@link #create} says which artifact to add.
 *
 * Priority 100: chosen over the in-memory store when both are on the class path. Thread-safe.
 */
public final class JdbiStoreProvider implements IdempotencyStoreProvider {

  /** Default maximum pool size. */
  public static final int DEFAULT_POOL_SIZE = 10;

  private final OptionalLibraries libraries;

  /** The provider {@link java.util.ServiceLoader} creates; it looks for HikariCP and H2 where it was loaded. */
  public JdbiStoreProvider() {
    this(OptionalLibraries.on(JdbiStoreProvider.class.getClassLoader()));
  }

  JdbiStoreProvider(OptionalLibraries libraries) {
    this.libraries = libraries;
  }

  @Override
  public String name() {
    return "jdbi";
  }

  @Override
  public int priority() {
    return 100;
  }

  /** Where the embedded default database lives: {@code ${user.home}/.idempotent/idempotent} (H2 adds {@code .mv.db}). */
  public static Path defaultH2Path() {
    return Path.of(System.getProperty("user.home"), ".idempotent", "idempotent");
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    String url = settings.get("url").orElse(null);
    String user = settings.get("user").orElse(url == null ? "sa" : null);
    String password = settings.get("password").orElse(url == null ? "" : null);
    int poolSize = settings.getInt("pool-size", DEFAULT_POOL_SIZE);
    if (poolSize < 1) {
      throw new IdempotencyConfigurationException("Property idempotent.jdbi.pool-size must be at least 1");
    }
    TransactionMode mode = TransactionMode.ofProperty(settings.get("mode", "independent"));
    String table = settings.get("table", SchemaScript.DEFAULT_TABLE);
    try {
      TableName.of(table);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException("Property idempotent.jdbi.table: " + e.getMessage());
    }
    boolean createSchema = settings.getBoolean("create-schema", true);
    boolean requireTransaction = settings.getBoolean("require-transaction", true);
    boolean relaxedClaims = claimDurability(settings.get("claim-durability", "durable"));
    Duration purgeInterval = settings.getDuration("purge-interval", Duration.ofMinutes(10));
    int purgeBatch = settings.getInt("purge-batch-size", PurgeScheduler.DEFAULT_BATCH_SIZE);
    Duration operationTimeout = settings.getDuration("operation-timeout", Connections.DEFAULT_OPERATION_TIMEOUT);
    try {
      JdbiIdempotencyStore.Builder.checkOperationTimeout(operationTimeout);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException("Property idempotent.jdbi.operation-timeout: " + e.getMessage());
    }

    if (url != null && url.trim().toLowerCase(Locale.ROOT).startsWith("jdbc:mysql:")) {
      throw new IdempotencyConfigurationException("Property idempotent.jdbi.url names a MySQL database (jdbc:mysql:),"
          + " which the jdbi idempotency store does not support; " + JdbiIdempotencyStore.SUPPORTED_DATABASES);
    }
    libraries.requirePool();
    Optional<Path> h2File = url == null ? Optional.of(defaultH2Path()) : EmbeddedH2File.fileOf(url);
    h2File.flatMap(EmbeddedH2File::refusal).ifPresent(refused -> {
      throw new IdempotencyConfigurationException(refused);
    });
    String jdbcUrl;
    if (url != null) {
      jdbcUrl = url;
    } else {
      // the embedded default: a file, so that records survive a restart
      libraries.requireEmbeddedH2(defaultH2Path());
      // WRITE_DELAY=0: a commit reaches the file when it happens. With H2's default (500 ms) an outcome
      // acknowledged just before the process is killed is lost, and the retry runs the method again
      jdbcUrl = "jdbc:h2:file:" + defaultH2Path().toAbsolutePath() + ";LOCK_TIMEOUT=10000;WRITE_DELAY=0";
    }
    DataSource pool;
    try {
      pool = ProviderPool.open(jdbcUrl, user, password, poolSize, operationTimeout);
    } catch (RuntimeException e) {
      if (url == null) {
        EmbeddedH2File.explain(e, defaultH2Path()).ifPresent(explained -> {
          throw new IdempotencyConfigurationException(explained, e);
        });
      }
      throw new IdempotencyConfigurationException("Cannot connect the jdbi idempotency store to " + where(url), e);
    }
    try {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(pool)
          .operationTimeout(operationTimeout)
          .table(table)
          .transactionMode(mode)
          .requireTransaction(requireTransaction)
          .createSchema(createSchema)
          .relaxedClaimDurability(relaxedClaims)
          .owning(() -> ProviderPool.close(pool))
          .build();
      if (!purgeInterval.isZero() && !purgeInterval.isNegative()) {
        store.own(PurgeScheduler.start(store, purgeInterval, purgeBatch));
      }
      return store;
    } catch (RuntimeException e) {
      ProviderPool.close(pool);
      throw new IdempotencyConfigurationException("Cannot set up the jdbi idempotency store on " + where(url), e);
    }
  }

  private static String where(@Nullable String url) {
    return url == null ? "the embedded H2 database at " + defaultH2Path() : "the configured url";
  }

  private static boolean claimDurability(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("durable") || v.equals("relaxed")) {
      return v.equals("relaxed");
    }
    throw new IdempotencyConfigurationException(
        "Property idempotent.jdbi.claim-durability is '" + value + "'; expected durable or relaxed");
  }
}
