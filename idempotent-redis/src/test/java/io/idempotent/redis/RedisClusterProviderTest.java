package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/** {@code idempotent.redis.cluster} and {@code wait-replicas} through the provider, on the private cluster. */
class RedisClusterProviderTest {

  @Test
  void clusterProperty_buildsAStoreOnTheCluster_andWaitForReplicasGetsItsAcknowledgement() throws Exception {
    PrivateRedisCluster cluster = PrivateRedisCluster.shared();
    String prefix = TestRedis.uniquePrefix("cluster-provider");
    Map<String, String> values = new HashMap<>();
    values.put("cluster", cluster.seedList());
    values.put("prefix", prefix);
    values.put("wait-replicas", "1");
    values.put("wait-timeout", "PT2S");
    try (RedisIdempotencyStore store = (RedisIdempotencyStore) new RedisStoreProvider()
        .create(new StoreSettings("redis", values))) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      for (int i = 0; i < 20; i++) {
        assertThat(idempotency.call("p", String.class).key("k" + i).run(() -> "v")).isEqualTo("v");
      }
    } finally {
      cluster.deleteAll(prefix);
    }
  }

  @Test
  void waitingForMoreReplicasThanThereAre_failsClosed_andGivesTheClaimBack() throws Exception {
    PrivateRedisCluster cluster = PrivateRedisCluster.shared();
    String prefix = TestRedis.uniquePrefix("cluster-wait");
    try (RedisIdempotencyStore store = RedisIdempotencyStore.builder().cluster(cluster.seeds()).prefix(prefix)
        .waitForReplicas(2, Duration.ofMillis(200)).build()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      assertThatThrownBy(() -> idempotency.call("p", String.class).key("k").run(() -> "v"))
          .isInstanceOf(IdempotencyStoreException.class)
          .rootCause().hasMessageContaining("reached 1 of the 2 replicas");
      assertThat(store.find(io.idempotent.internal.StoredKeys.compose("p", null, "k", store.keyRules()))).isEmpty();
    } finally {
      cluster.deleteAll(prefix);
    }
  }

  @Test
  void clusterExcludesHostPortAndDatabase() {
    assertThatThrownBy(() -> new RedisStoreProvider().create(new StoreSettings("redis",
        Map.of("cluster", "127.0.0.1:7000", "port", "7001"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("cluster excludes");
    assertThatThrownBy(() -> new RedisStoreProvider().create(new StoreSettings("redis", Map.of("cluster", "nonsense"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("not host:port");
    assertThatThrownBy(() -> RedisIdempotencyStore.builder().cluster(java.util.List.of(new HostAndPort("h", 1)))
        .database(3).build()).isInstanceOf(IllegalStateException.class);
  }
}
