package com.example.docs.redis;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.redis.RedisIdempotencyStore;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/** idempotent-redis's README: the store on a server, on a client the application has, on a cluster. */
public final class RedisSnippets {

  private RedisSnippets() {}

  public static RedisIdempotencyStore installed() {
    // README snippet: redis-store
    return store;
  }

  public static RedisIdempotencyStore onClient(UnifiedJedis redisClient) {
    // README snippet: redis-client
    return store;
  }

  public static RedisIdempotencyStore onCluster() {
    // README snippet: redis-cluster
    return store;
  }
}
