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

  @Override
  protected IdempotencyStore createStore() {
    TestDatabase db = database();
    db.requireReachable();
    return JdbiIdempotencyStore.builder(db.jdbi()).createSchema(SCHEMA_CREATED.add(db)).build();
  }

  @Override
  protected void advancePast(Duration d) throws InterruptedException {
    // a little more than d: the database clock ticks in microseconds, the sleep in milliseconds
    Thread.sleep(d.toMillis() + 30);
  }
}
