package io.idempotent.jdbi;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.MultiInstanceContract;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * The multi-instance contract on one database server: each instance has its own HikariCP pool, {@code Jdbi}
 * and store on the default table; each server is a tiny subclass, and so is each composition in front of
 * the table store.
 */
public abstract class JdbiMultiInstanceTestBase extends MultiInstanceContract {

  private final Map<IdempotencyStore, HikariDataSource> pools = new ConcurrentHashMap<>();

  protected abstract TestDatabase database();

  /** The store an instance uses on top of its own table store: by default the table store itself. */
  protected IdempotencyStore around(JdbiIdempotencyStore table) {
    return table;
  }

  @Override
  protected IdempotencyStore createInstance() {
    TestDatabase db = database();
    db.requireReachable();
    db.storeBuilder().build(); // the schema, once
    HikariDataSource pool = db.newPool(threadsPerInstance() + 2, getClass().getSimpleName() + "-" + pools.size());
    IdempotencyStore store = around(JdbiIdempotencyStore.builder(Jdbi.create(pool)).build());
    pools.put(store, pool);
    return store;
  }

  @Override
  protected void closeInstance(IdempotencyStore store) {
    store.close();
    pools.remove(store).close();
  }
}
