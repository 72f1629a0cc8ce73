package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoredOutcome;
import io.idempotent.testkit.HostileInputContract;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** The hostile-input contract on Redis, and what could break a Redis store in particular. */
class RedisHostileInputTest extends HostileInputContract {

  private final String prefix = TestRedis.uniquePrefix("hostile");
  private RedisIdempotencyStore redis;

  @Override
  protected IdempotencyStore createStore() {
    TestRedis.requireReachable();
    redis = TestRedis.store(prefix);
    return redis;
  }

  @AfterEach
  void deleteKeys() {
    if (redis != null) {
      TestRedis.deleteAll(prefix);
    }
  }

  @Test
  void keysOf100kB_becomeADigestAsTheRedisKey() {
    String ns = key("digest");
    String longKey = "x".repeat(100_000);
    idempotency.call(ns, String.class).key(longKey).run(() -> "done");
    String stored = StoredKeys.compose(ns, null, longKey, redis.keyRules());
    byte[] redisKey = redis.redisKey(stored);
    assertThat(redisKey.length).as("the Redis key is a digest, not 100 kB").isLessThan(200);
    try (RedisClient client = TestRedis.client()) {
      assertThat(client.exists(redisKey)).isTrue();
    }
  }

  @Test
  void keysWithNulAndLoneSurrogates_areKeptInTheRedisKeyAsGiven() {
    String stored = StoredKeys.compose(key("raw"), null, "a\u0000\uD800", redis.keyRules());
    assertThat(stored).endsWith("|a\u0000\uD800");
    byte[] redisKey = redis.redisKey(stored);
    byte[] tail = java.util.Arrays.copyOfRange(redisKey, redisKey.length - 5, redisKey.length);
    assertThat(tail).containsExactly('a', 0, 0xED, 0xA0, 0x80);
  }

  @Test
  void failureMessages_areBoundedLikeTheTableStore() {
    String key = key("long-message");
    String o = owner();
    redis.claim(key, "fp", o, LONG);
    redis.complete(key, o, StoredOutcome.failure("com.example.Declined", "m".repeat(10_000)), LONG);
    assertThat(redis.find(key).orElseThrow().outcome().failureMessage()).hasSize(OutcomeFields.MAX_MESSAGE_LENGTH);
  }

  @Test
  void recordsOfAnotherProgram_underThePrefix_failClosed() {
    try (RedisClient client = TestRedis.client()) {
      client.set(redis.redisKey("a-string"), "not a hash".getBytes());
      client.hset(redis.redisKey("other-hash"), Map.of("state".getBytes(), "SOMETHING_ELSE".getBytes()));
    }
    for (String key : List.of("a-string", "other-hash")) {
      assertThatThrownBy(() -> redis.claim(key, "fp", owner(), LONG))
          .isInstanceOf(io.idempotent.IdempotencyStoreException.class);
      assertThatThrownBy(() -> redis.find(key)).isInstanceOf(io.idempotent.IdempotencyStoreException.class);
    }
  }

  @Test
  void durations_mustBePositive_andTheShortestIsRoundedUp() {
    assertThatThrownBy(() -> redis.claim("d", "fp", owner(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> redis.claim("d", "fp", owner(), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    try {
      assertThat(redis.claim("d", "fp", owner(), Duration.ofNanos(1)).claimed()).as("rounded up to 1 ms").isTrue();
    } catch (io.idempotent.IdempotencyStoreException late) {
      // a 1 ms lease may well end before its answer arrives: then the claim is given back, never refused
      // as a duration
      assertThat(late).hasMessageContaining("not within its lease of 1 ms");
    }
  }
}
