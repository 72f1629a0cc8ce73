package io.idempotent.redis;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.MultiInstanceContract;
import org.junit.jupiter.api.AfterEach;

/**
 * Application instances, each with its own connection pool and store, on one Redis database and key
 * prefix: the server alone decides.
 */
class RedisMultiInstanceTest extends MultiInstanceContract {

  private final String prefix = TestRedis.uniquePrefix("multi");
  private boolean opened;

  @Override
  protected IdempotencyStore createInstance() {
    TestRedis.requireReachable();
    opened = true;
    return RedisIdempotencyStore.builder().host(TestRedis.HOST).port(TestRedis.PORT).database(TestRedis.DATABASE)
        .prefix(prefix).poolSize(threadsPerInstance()).build();
  }

  @AfterEach
  void deleteKeys() {
    if (opened) {
      TestRedis.deleteAll(prefix);
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
