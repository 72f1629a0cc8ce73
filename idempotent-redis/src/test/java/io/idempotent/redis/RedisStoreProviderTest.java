package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class RedisStoreProviderTest {

  private static StoreSettings settings(Map<String, String> values) {
    return new StoreSettings("redis", values);
  }

  private static Map<String, String> testServer(String prefix) {
    Map<String, String> m = new HashMap<>();
    m.put("host", TestRedis.HOST);
    m.put("port", Integer.toString(TestRedis.PORT));
    m.put("database", Integer.toString(TestRedis.DATABASE));
    m.put("prefix", prefix);
    return m;
  }

  @Test
  void provider_isRegistered_asRedis_betweenTheInMemoryAndTheTableStores() {
    IdempotencyStoreProvider p = StreamSupport.stream(ServiceLoader.load(IdempotencyStoreProvider.class).spliterator(), false)
        .filter(x -> x.name().equals("redis")).findFirst().orElseThrow();
    assertThat(p).isInstanceOf(RedisStoreProvider.class);
    assertThat(p.priority()).isEqualTo(50);
  }

  @Test
  void create_readsItsSettings_andTheStoreWorks() {
    TestRedis.requireReachable();
    String prefix = TestRedis.uniquePrefix("provider");
    Map<String, String> values = testServer(prefix);
    values.put("timeout", "PT3S");
    values.put("pool-size", "4");
    values.put("max-key-length", "200");
    values.put("ssl", "false");
    try (RedisIdempotencyStore store = (RedisIdempotencyStore) new RedisStoreProvider().create(settings(values))) {
      assertThat(store.prefix()).isEqualTo(prefix);
      assertThat(store.keyRules().maxChars()).isEqualTo(200);
      assertThat(Idempotency.create(IdempotencyConfig.builder().store(store).build())
          .call("p", String.class).key("k").run(() -> "v")).isEqualTo("v");
    } finally {
      TestRedis.deleteAll(prefix);
    }
  }

  @Test
  void fromProperties_namingRedis_configuresIt() {
    TestRedis.requireReachable();
    String prefix = TestRedis.uniquePrefix("env");
    Map<String, String> props = new HashMap<>();
    props.put("idempotent.store", "redis");
    testServer(prefix).forEach((k, v) -> props.put("idempotent.redis." + k, v));
    IdempotencyConfig config = Idempotency.fromProperties(props, getClass().getClassLoader());
    IdempotencyStore store = config.store("redis");
    try {
      assertThat(config.defaultStoreName()).isEqualTo("redis");
      assertThat(((RedisIdempotencyStore) store).prefix()).isEqualTo(prefix);
    } finally {
      ((RedisIdempotencyStore) store).close();
      TestRedis.deleteAll(prefix);
    }
  }

  @Test
  void unreachableServer_failsAtCreation_namingTheAddress_butNotThePassword() throws Exception {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    Map<String, String> values = Map.of("port", Integer.toString(deadPort), "password", "s3cret-value",
        "timeout", "PT0.5S");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(values)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("127.0.0.1:" + deadPort)
        .hasMessageNotContaining("s3cret-value");
  }

  @Test
  void invalidSettings_failWithTheSettingsName() {
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("port", "sixty"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("idempotent.redis.port");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("port", "70000"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("port");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("timeout", "2s"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("idempotent.redis.timeout");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("ssl", "yes"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("idempotent.redis.ssl");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("database", "-1"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("database");
    assertThatThrownBy(() -> new RedisStoreProvider().create(settings(Map.of("max-key-length", "10"))))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("maxKeyLength");
  }
}
