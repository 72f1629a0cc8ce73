package io.idempotent.redis;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

/** The core contract on a real Redis; time is the server's, so letting it pass means sleeping. */
class RedisStoreContractTest extends IdempotencyStoreContract {

  private final String prefix = TestRedis.uniquePrefix("kit");

  @Override
  protected IdempotencyStore createStore() {
    TestRedis.requireReachable();
    return TestRedis.store(prefix);
  }

  @Override
  protected void closeStore(IdempotencyStore store) {
    if (store == null) {
      return;
    }
    ((RedisIdempotencyStore) store).close();
    TestRedis.deleteAll(prefix);
  }

  @Override
  protected void advancePast(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis() + 50);
  }

  @Override
  protected boolean expiresByItself() {
    return true;
  }
}
