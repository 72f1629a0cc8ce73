package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store contract kit on one database; each database is a tiny subclass. All tests share the default
 * table: the kit's keys are unique per run. Time is the database's and cannot be faked, so letting time
 * pass means sleeping.
 */
abstract class JdbiStoreContractTestBase extends IdempotencyStoreContract {

  private static final Set<TestDatabase> SCHEMA_CREATED = ConcurrentHashMap.newKeySet();

  protected abstract TestDatabase database();

  /**
   * Whether the store is built from the pool itself (statements on connections borrowed from it) rather
   * than from a {@code Jdbi} (statements on a handle's connection).
   */
  protected boolean fromDataSource() {
    return false;
  }

  @Override
  protected IdempotencyStore createStore() {
    TestDatabase db = database();
    db.requireReachable();
    JdbiIdempotencyStore.Builder builder =
        fromDataSource() ? JdbiIdempotencyStore.builder(db.pool()) : JdbiIdempotencyStore.builder(db.jdbi());
    return builder.createSchema(SCHEMA_CREATED.add(db)).build();
  }

  @Override
  protected void advancePast(Duration d) throws InterruptedException {
    // a little more than d: the database clock ticks in microseconds, the sleep in milliseconds
    Thread.sleep(d.toMillis() + 30);
  }
}
