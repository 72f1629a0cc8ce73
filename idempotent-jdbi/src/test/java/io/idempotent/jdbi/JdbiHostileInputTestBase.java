package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.HostileInputContract;

/**
 * The hostile-input contract on one database's default table; each database is a tiny subclass, and so is
 * each composition in front of the table store.
 */
public abstract class JdbiHostileInputTestBase extends HostileInputContract {

  protected abstract TestDatabase database();

  /** The store under test on top of the table store: by default the table store itself. */
  protected IdempotencyStore around(JdbiIdempotencyStore table) {
    return table;
  }

  @Override
  protected IdempotencyStore createStore() {
    TestDatabase db = database();
    db.requireReachable();
    return around(db.storeBuilder().build());
  }
}
