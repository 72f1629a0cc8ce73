package io.idempotent.examples.batch;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import org.jdbi.v3.core.Jdbi;

/**
 * A batch consumer's database: the JDBI idempotency store in joined mode and the table of booked orders, on
 * one {@link CountingDataSource}. A transaction opened on {@link #jdbi()} is the one the store joins: a batch
 * run inside it claims its keys, and records its outcomes, in that transaction. Thread-safe once open.
 */
public final class BatchDatabase implements AutoCloseable {

  /** The table of the consumers' idempotency records. */
  public static final String RECORDS = "batch_idempotency_record";

  private final CountingDataSource pool;
  private final Jdbi jdbi;
  private final JdbiIdempotencyStore store;
  private final Idempotency idempotency;

  private BatchDatabase(CountingDataSource pool, Jdbi jdbi, JdbiIdempotencyStore store) {
    this.pool = pool;
    this.jdbi = jdbi;
    this.store = store;
    this.idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  /**
   * Opens a pool of {@code connections} connections to {@code url} (PostgreSQL: the batch's claims are one
   * statement there, its outcomes another), creates the tables where missing and builds the store in joined
   * mode.
   */
  public static BatchDatabase open(String url, String user, String password, int connections) {
    CountingDataSource pool = new CountingDataSource(url, user, password, connections);
    try {
      Jdbi jdbi = Jdbi.create(pool);
      OrderBatches.createTable(jdbi);
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
          .transactionMode(TransactionMode.JOINED)
          .table(RECORDS)
          .createSchema(true)
          .build();
      return new BatchDatabase(pool, jdbi, store);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /** The store's {@code Jdbi}: open the batches' transactions on it, so the store joins them. */
  public Jdbi jdbi() {
    return jdbi;
  }

  public Idempotency idempotency() {
    return idempotency;
  }

  public JdbiIdempotencyStore store() {
    return store;
  }

  /** The pool, which counts the statements sent. */
  public CountingDataSource pool() {
    return pool;
  }

  @Override
  public void close() {
    try {
      store.close();
    } finally {
      pool.close();
    }
  }
}
