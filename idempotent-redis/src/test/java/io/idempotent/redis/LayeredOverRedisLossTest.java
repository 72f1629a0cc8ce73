package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Layered instances (a near cache in each, Redis as the store of record) after Redis lost a completed record:
 * an instance that cached the outcome keeps replaying it for the record's remaining lifetime, while a fresh
 * instance runs the call again and records a new outcome. The layered store's documentation says so.
 */
class LayeredOverRedisLossTest {

  private static LayeredIdempotencyStore layered(RedisIdempotencyStore far) {
    return new LayeredIdempotencyStore(new CaffeineIdempotencyStore(), far);
  }

  @Test
  void nearCopyOutlivesALostRedisRecord_whileAFreshInstanceRunsAgain() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); Jedis admin = server.admin();
        RedisIdempotencyStore farOne = server.store(); RedisIdempotencyStore farTwo = server.store()) {
      Idempotency one = Idempotency.create(IdempotencyConfig.builder().store(layered(farOne)).build());
      AtomicInteger runs = new AtomicInteger();
      String first = one.call("orders", String.class).key("o-1").run(() -> "receipt-" + runs.incrementAndGet());

      admin.flushAll(); // a restart without persistence, a failover to a replica that missed it, an eviction

      CallResult<String> cached = one.call("orders", String.class).key("o-1").execute(() -> "receipt-" + runs.incrementAndGet());
      Idempotency two = Idempotency.create(IdempotencyConfig.builder().store(layered(farTwo)).build());
      CallResult<String> fresh = two.call("orders", String.class).key("o-1").execute(() -> "receipt-" + runs.incrementAndGet());
      CallResult<String> cachedAgain = one.call("orders", String.class).key("o-1")
          .execute(() -> "receipt-" + runs.incrementAndGet());
      System.out.printf("after Redis lost the record: executions %d, the caching instance replays %s, the fresh one"
          + " recorded %s%n", runs.get(), cachedAgain.value(), fresh.value());
      assertThat(cached.replayed()).as("the instance that cached it replays from its near copy").isTrue();
      assertThat(cached.value()).isEqualTo(first);
      assertThat(fresh.replayed()).as("a fresh instance finds nothing in Redis and runs").isFalse();
      assertThat(cachedAgain.value()).as("two instances now answer with different outcomes").isEqualTo(first)
          .isNotEqualTo(fresh.value());
      assertThat(runs).hasValue(2);
    }
  }
}
