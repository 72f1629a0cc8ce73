package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Instances under one prefix configured with different {@code max-key-length}s would hash one long key at
 * one and keep it whole at the other: two Redis keys, and both would run the call. The first instance
 * writes its setting into Redis; a mismatched one fails loudly instead of running.
 */
class KeyLengthSettingTest {

  private final String prefix = TestRedis.uniquePrefix("key-length");

  private RedisIdempotencyStore store(int maxKeyLength) {
    return RedisIdempotencyStore.builder().host(TestRedis.HOST).port(TestRedis.PORT).database(TestRedis.DATABASE)
        .prefix(prefix).maxKeyLength(maxKeyLength).build();
  }

  @AfterEach
  void deleteKeys() {
    TestRedis.deleteAll(prefix);
  }

  @Test
  void instancesWithDifferentMaxKeyLengths_theSecondFailsLoudly_andTheCallRunsOnce() {
    TestRedis.requireReachable();
    String longKey = "k".repeat(150); // hashed by an instance that keeps 100 characters, whole by one that keeps 200
    AtomicInteger runs = new AtomicInteger();
    try (RedisIdempotencyStore short100 = store(100); RedisIdempotencyStore long200 = store(200)) {
      Idempotency first = Idempotency.create(IdempotencyConfig.builder().store(short100).build());
      Idempotency second = Idempotency.create(IdempotencyConfig.builder().store(long200).build());
      assertThat(first.call("len", String.class).key(longKey).run(() -> "r" + runs.incrementAndGet())).isEqualTo("r1");
      assertThatThrownBy(() -> second.call("len", String.class).key(longKey).run(() -> "r" + runs.incrementAndGet()))
          .isInstanceOf(IdempotencyStoreException.class)
          .rootCause().hasMessageContaining("max-key-length");
      assertThat(runs).as("the call ran once").hasValue(1);
    }
    try (RedisIdempotencyStore again100 = store(100)) {
      assertThat(Idempotency.create(IdempotencyConfig.builder().store(again100).build())
          .call("len", String.class).key(longKey).execute(() -> "r" + runs.incrementAndGet()).replayed())
          .as("an instance with the same setting replays").isTrue();
    }
  }

  @Test
  void providerWithAnotherMaxKeyLength_failsAtStartUp() {
    TestRedis.requireReachable();
    Map<String, String> values = new java.util.HashMap<>(Map.of("host", TestRedis.HOST, "port",
        Integer.toString(TestRedis.PORT), "database", Integer.toString(TestRedis.DATABASE), "prefix", prefix));
    values.put("max-key-length", "300");
    new RedisStoreProvider().create(new StoreSettings("redis", values)).close();
    values.put("max-key-length", "400");
    assertThatThrownBy(() -> new RedisStoreProvider().create(new StoreSettings("redis", values)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("max-key-length");
  }
}
