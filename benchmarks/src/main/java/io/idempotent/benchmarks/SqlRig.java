package io.idempotent.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * One database prepared for a benchmark: a pool, and tables of the benchmarks' own (never the
 * application's {@code idempotency_record}), dropped again on {@link #close()}. Not thread-safe to set
 * up or close; the pool and {@code Jdbi} it hands out are.
 */
final class SqlRig implements AutoCloseable {

  static final String RECORDS = "bench_idempotency_record";
  static final String CAMEL = "bench_camel_processed";
  static final String ORDERS = "bench_orders";
  static final String FLOOR = "bench_floor_record";

  final BenchDatabase db;
  final HikariDataSource pool;
  final Jdbi jdbi;
  private final Path h2Directory;

  SqlRig(BenchDatabase db, int poolSize) {
    this(db, poolSize, null);
  }

  /** With the pool's connections made through {@code counts} (H2 only; null: directly). */
  SqlRig(BenchDatabase db, int poolSize, JdbcCounts counts) {
    this.db = db;
    try {
      this.h2Directory = Files.createTempDirectory("idempotent-bench-h2");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.pool = db.pool(poolSize, h2Directory, counts);
    this.jdbi = Jdbi.create(pool);
    dropTables();
  }

  /**
   * A builder for the store on this rig's pool and table, as an application in independent mode builds
   * it (statements on connections borrowed from the pool); the table is created on build.
   */
  JdbiIdempotencyStore.Builder storeBuilder() {
    return JdbiIdempotencyStore.builder(pool).table(RECORDS).createSchema(true);
  }

  /** The same on this rig's {@code Jdbi}, which joined mode needs to find the caller's transaction. */
  JdbiIdempotencyStore.Builder joinedStoreBuilder() {
    return JdbiIdempotencyStore.builder(jdbi).table(RECORDS).createSchema(true);
  }

  /** Camel's table, with the primary key a careful user adds (Camel's own DDL has no index at all). */
  void createCamelTable() {
    jdbi.useHandle(h -> h.execute("CREATE TABLE " + CAMEL + " (processorName VARCHAR(255) NOT NULL,"
        + " messageId VARCHAR(255) NOT NULL, createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId))"));
  }

  /** The minimal floor's table ({@link MinimalFloor}): the primary key is its only index. */
  void createFloorTable() {
    jdbi.useHandle(h -> h.execute(MinimalFloor.ddl(FLOOR)));
  }

  /** A business table for the commit-cost scenario. */
  void createOrdersTable() {
    jdbi.useHandle(h -> h.execute("CREATE TABLE " + ORDERS + " (id VARCHAR(100) PRIMARY KEY, cents BIGINT NOT NULL)"));
  }

  /** Fails when the orders table does not hold one row per execution of {@code contender}'s method. */
  void requireOneOrderPerExecution(Object contender, long executions) {
    long done = count(ORDERS);
    if (done != executions) {
      throw new IllegalStateException(contender + ": " + executions + " executions, " + done + " orders");
    }
  }

  long count(String table) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM " + table).mapTo(Long.class).one();
    }
  }

  private void dropTables() {
    jdbi.useHandle(h -> {
      for (String t : new String[] {RECORDS, CAMEL, ORDERS, FLOOR}) {
        h.execute("DROP TABLE IF EXISTS " + t);
      }
    });
  }

  @Override
  public void close() {
    try {
      dropTables();
    } finally {
      pool.close();
      deleteH2Files();
    }
  }

  private void deleteH2Files() {
    try (Stream<Path> files = Files.walk(h2Directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
