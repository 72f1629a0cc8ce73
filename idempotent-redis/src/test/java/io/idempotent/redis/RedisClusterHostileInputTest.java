package io.idempotent.redis;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.HostileInputContract;
import org.junit.jupiter.api.AfterEach;

/** The hostile-input contract on a private Redis Cluster: keys with braces, NUL, long keys, on any slot. */
class RedisClusterHostileInputTest extends HostileInputContract {

  private final String prefix = TestRedis.uniquePrefix("cluster-hostile");
  private PrivateRedisCluster cluster;

  @Override
  protected IdempotencyStore createStore() throws Exception {
    cluster = PrivateRedisCluster.shared();
    return cluster.store(prefix);
  }

  @AfterEach
  void deleteKeys() {
    if (cluster != null) {
      cluster.deleteAll(prefix);
    }
  }
}
