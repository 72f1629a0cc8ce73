package io.idempotent.jdbi.layered;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

/**
 * The store contract kit on the production composition: Caffeine in front, the table store behind. The
 * database clock cannot be faked, so the kit sleeps, and the Caffeine store and the layered store keep
 * real time too (their defaults).
 */
abstract class LayeredStoreContractTestBase extends IdempotencyStoreContract {

  protected abstract TestDatabase database();

  @Override
  protected IdempotencyStore createStore() {
    TestDatabase db = database();
    db.requireReachable();
    return new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), db.storeBuilder().build());
  }

  @Override
  protected void advancePast(Duration d) throws InterruptedException {
    // a little more than d: the database clock ticks in microseconds, the sleep in milliseconds
    Thread.sleep(d.toMillis() + 30);
  }
}
