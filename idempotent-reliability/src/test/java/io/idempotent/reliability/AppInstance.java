package io.idempotent.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;

/**
 * One application instance in a test: its own pool, table store, engine and event counter, as a
 * separate JVM would have. Programmatic calls ({@link Idempotency#create}) let several instances live
 * in one test JVM. Closing it closes the pool.
 */
final class AppInstance implements AutoCloseable {

  final HikariDataSource pool;
  final Jdbi jdbi;
  final JdbiIdempotencyStore table;
  final IdempotencyStore store;
  final EventCounter events = new EventCounter();
  final Idempotency idempotency;

  private AppInstance(HikariDataSource pool, TransactionMode mode, Duration lease, boolean renewal,
      UnaryOperator<IdempotencyStore> wrap) {
    this.pool = pool;
    this.jdbi = Jdbi.create(pool);
    this.table = JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE).transactionMode(mode).createSchema(true).build();
    this.store = wrap.apply(table);
    this.idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(store)
        .defaultLease(lease)
        .leaseRenewal(renewal)
        .listener(events)
        .build());
  }

  /** An instance on {@code db} with a pool of its own (four connections). */
  static AppInstance on(Database db, String name, TransactionMode mode, Duration lease, boolean renewal) {
    return on(db.newPool(4, name), mode, lease, renewal, UnaryOperator.identity());
  }

  static AppInstance on(HikariDataSource pool, TransactionMode mode, Duration lease, boolean renewal,
      UnaryOperator<IdempotencyStore> wrap) {
    return new AppInstance(pool, mode, lease, renewal, wrap);
  }

  @Override
  public void close() {
    pool.close();
  }
}
