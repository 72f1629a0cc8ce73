package io.idempotent.redis;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.MultiInstanceContract;
import org.junit.jupiter.api.AfterEach;

/**
 * Application instances, each with its own cluster client and pools, on one private Redis Cluster: the
 * keys spread over three masters, and each key's master alone decides.
 */
class RedisClusterMultiInstanceTest extends MultiInstanceContract {

  private final String prefix = TestRedis.uniquePrefix("cluster-multi");
  private PrivateRedisCluster cluster;

  @Override
  protected IdempotencyStore createInstance() throws Exception {
    cluster = PrivateRedisCluster.shared();
    return RedisIdempotencyStore.builder().cluster(cluster.seeds()).prefix(prefix).poolSize(threadsPerInstance())
        .build();
  }

  @AfterEach
  void deleteKeys() {
    if (cluster != null) {
      cluster.deleteAll(prefix);
    }
  }

  @Override
  protected int instances() {
    return 4;
  }

  @Override
  protected int keys() {
    return 500;
  }
}
