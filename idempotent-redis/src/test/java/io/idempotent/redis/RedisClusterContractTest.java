package io.idempotent.redis;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

/** The core contract on a private Redis Cluster of 3 masters and 3 replicas, through the cluster client. */
class RedisClusterContractTest extends IdempotencyStoreContract {

  private final String prefix = TestRedis.uniquePrefix("cluster-kit");
  private PrivateRedisCluster cluster;

  @Override
  protected IdempotencyStore createStore() throws Exception {
    cluster = PrivateRedisCluster.shared();
    return cluster.store(prefix);
  }

  @Override
  protected void closeStore(IdempotencyStore store) {
    if (store == null) {
      return;
    }
    ((RedisIdempotencyStore) store).close();
    cluster.deleteAll(prefix);
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
