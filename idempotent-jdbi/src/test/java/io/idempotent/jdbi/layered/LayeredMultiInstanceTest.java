package io.idempotent.jdbi.layered;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.JdbiMultiInstanceTestBase;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;

/**
 * Application instances, each with its own near cache, HikariCP pool, table store and engine, share one
 * PostgreSQL table: the table decides, and a duplicate waits in memory on its own instance's run, or on the
 * table for another's.
 */
class LayeredMultiInstanceTest extends JdbiMultiInstanceTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  protected IdempotencyStore around(JdbiIdempotencyStore table) {
    return new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), table);
  }

  @Override
  protected int instances() {
    return 2;
  }

  @Override
  protected int threadsPerInstance() {
    return 8;
  }

  @Override
  protected int copiesPerInstance() {
    return 3;
  }
}
