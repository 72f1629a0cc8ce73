package io.idempotent.spring;

import io.idempotent.MissingKeyPolicy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotent.*} properties: the names of the library's own property configuration, bound by
 * Spring Boot (so {@code application.yml}, profiles and environment variables work) and described for
 * the IDE.
 */
@ConfigurationProperties("idempotent")
public class IdempotencyProperties {

  /** Whether calls are protected; with false every annotated method runs unprotected. */
  private boolean enabled = true;

  /**
   * Whether every @Idempotent method of the application's beans is checked at start-up (not woven, bad
   * key expressions, results that cannot be recorded, store names no store has), failing the start.
   */
  private boolean validateOnStartup = true;

  public boolean isValidateOnStartup() {
    return validateOnStartup;
  }

  public void setValidateOnStartup(boolean validateOnStartup) {
    this.validateOnStartup = validateOnStartup;
  }

  /** How long a completed outcome is kept and replayed (default 24h). */
  private @Nullable Duration ttl;

  /** How long a claim is held before another caller may take it over, renewed while the method runs (default 30s). */
  private @Nullable Duration lease;

  /** How long a duplicate waits for the call in progress, with onInProgress = WAIT (default 10s). */
  private @Nullable Duration waitTimeout;

  /** What a call whose key expression gives null or blank does: reject (default) or run-unprotected. */
  private @Nullable MissingKeyPolicy missingKey;

  /**
   * The store: jdbi (the SQL table on the application's DataSource), redis (on spring.data.redis.*) or
   * caffeine (in memory). Default: an IdempotencyStore bean of the application, else jdbi when there is
   * one DataSource, else redis when a Redis connection is configured, else caffeine.
   */
  private @Nullable String store;

  private final Jdbi jdbi = new Jdbi();

  private final Caffeine caffeine = new Caffeine();

  private final Http http = new Http();

  private final Metrics metrics = new Metrics();

  /** Meters and observations of idempotent-micrometer, when the application has a {@code MeterRegistry}. */
  public static class Metrics {

    /** Whether calls are measured in the application's meter registry (default true). */
    private boolean enabled = true;

    /**
     * Whether each call is also an observation of the application's ObservationRegistry, so that traces
     * see it (default true).
     */
    private boolean observations = true;

    /**
     * Whether the operations of every store are timed too, in idempotent.store.operations (true), or of
     * none (false). When not set, those of the stores that leave the process (SQL, Redis) are timed and
     * those of the in-memory Caffeine store are not: timing one costs about as much as the operation.
     */
    private @Nullable Boolean storeOperations;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isObservations() {
      return observations;
    }

    public void setObservations(boolean observations) {
      this.observations = observations;
    }

    public @Nullable Boolean getStoreOperations() {
      return storeOperations;
    }

    public void setStoreOperations(@Nullable Boolean storeOperations) {
      this.storeOperations = storeOperations;
    }
  }

  /** The {@code Idempotency-Key} filter of idempotent-http, in a servlet or a reactive web application. */
  public static class Http {

    /** Whether the filter is registered (default false). */
    private boolean enabled;

    /**
     * The filter's place in the chain: after authentication, so that keys belong to the signed-in client
     * (default 0; Spring Security's chain runs at -100).
     */
    private int order;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getOrder() {
      return order;
    }

    public void setOrder(int order) {
      this.order = order;
    }
  }

  /** The SQL table store on the application's DataSource. */
  public static class Jdbi {

    /** The table, optionally schema-qualified. */
    private String table = "idempotency_record";

    /**
     * How calls are recorded. independent (default): on their own, each write committed at once;
     * transaction-scoped: on their own, the claim held uncommitted in a transaction of the store's own until
     * the outcome commits it. A call declared @Idempotent(effects = TRANSACTIONAL) writes its claim and
     * outcome in the caller's Spring-managed transaction in every mode, and in these two modes an undeclared
     * call made inside a transaction is refused (it must say whether its effects commit with the transaction
     * or are external). joined and joined-transaction-scoped take undeclared calls as transactional, and
     * record the others as independent and transaction-scoped do.
     */
    private String mode = "independent";

    /**
     * Whether a transactional call (declared Effects.TRANSACTIONAL, or undeclared in a joined mode) with no
     * Spring-managed transaction open is refused before it runs; with false it is recorded on its own.
     */
    private boolean requireTransaction = true;

    /**
     * Whether the table and its index are created at start-up when missing; with false an existing table
     * is checked and a missing one fails the start (for schemas managed by Flyway or Liquibase, from the
     * scripts shipped in idempotent-jdbi: io/idempotent/jdbi/schema-*.sql).
     */
    private boolean createSchema = true;

    /**
     * How long one of the store's operations waits for a connection from the DataSource's pool (whatever
     * the pool's own timeout) and for each reply of the database; an unreachable database then fails a
     * call within it, without running the method.
     */
    private Duration operationTimeout = Duration.ofSeconds(5);

    public Duration getOperationTimeout() {
      return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
      this.operationTimeout = operationTimeout;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public String getMode() {
      return mode;
    }

    public void setMode(String mode) {
      this.mode = mode;
    }

    public boolean isRequireTransaction() {
      return requireTransaction;
    }

    public void setRequireTransaction(boolean requireTransaction) {
      this.requireTransaction = requireTransaction;
    }

    public boolean isCreateSchema() {
      return createSchema;
    }

    public void setCreateSchema(boolean createSchema) {
      this.createSchema = createSchema;
    }
  }

  /** The in-memory store. */
  public static class Caffeine {

    /** How many completed outcomes are kept at most; the least recently used go first. */
    private @Nullable Long maximumCompleted;

    public @Nullable Long getMaximumCompleted() {
      return maximumCompleted;
    }

    public void setMaximumCompleted(@Nullable Long maximumCompleted) {
      this.maximumCompleted = maximumCompleted;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public @Nullable Duration getTtl() {
    return ttl;
  }

  public void setTtl(@Nullable Duration ttl) {
    this.ttl = ttl;
  }

  public @Nullable Duration getLease() {
    return lease;
  }

  public void setLease(@Nullable Duration lease) {
    this.lease = lease;
  }

  public @Nullable Duration getWaitTimeout() {
    return waitTimeout;
  }

  public void setWaitTimeout(@Nullable Duration waitTimeout) {
    this.waitTimeout = waitTimeout;
  }

  public @Nullable MissingKeyPolicy getMissingKey() {
    return missingKey;
  }

  public void setMissingKey(@Nullable MissingKeyPolicy missingKey) {
    this.missingKey = missingKey;
  }

  public @Nullable String getStore() {
    return store;
  }

  public void setStore(@Nullable String store) {
    this.store = store;
  }

  public Jdbi getJdbi() {
    return jdbi;
  }

  public Caffeine getCaffeine() {
    return caffeine;
  }

  public Http getHttp() {
    return http;
  }

  public Metrics getMetrics() {
    return metrics;
  }
}
