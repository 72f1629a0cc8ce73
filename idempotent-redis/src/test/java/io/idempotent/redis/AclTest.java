package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The least a Redis ACL user needs, as the README lists it, on a Redis of the test's own: the store works
 * with exactly these rights, and a key outside its prefix is refused.
 */
class AclTest {

  @Test
  void leastPrivilegedUser_withTheDocumentedRights_runsTheStore() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch(); Jedis admin = server.admin()) {
      admin.aclSetUser("idempotent-app", "on", ">app-secret", "resetkeys", "~idempotent:*", "-@all",
          "+evalsha", "+eval", "+ping", "+hmget", "+hset", "+del", "+pexpire", "+pttl", "+exists",
          "+client|setname");
      StoreSettings settings = new StoreSettings("redis", Map.of("port", Integer.toString(server.port()),
          "user", "idempotent-app", "password", "app-secret"));
      try (RedisIdempotencyStore store = (RedisIdempotencyStore) new RedisStoreProvider().create(settings)) {
        Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
        assertThat(idempotency.call("acl", String.class).key("k").run(() -> "v")).isEqualTo("v");
        assertThat(idempotency.call("acl", String.class).key("k").execute(() -> "w").replayed()).isTrue();
        assertThatThrownBy(() -> idempotency.call("acl", String.class).key("failing").run(() -> {
          throw new IllegalStateException("released");
        })).hasMessage("released");
        assertThat(idempotency.call("acl", String.class).key("failing").run(() -> "retried")).isEqualTo("retried");
      }
      try (RedisIdempotencyStore outside = RedisIdempotencyStore.builder().port(server.port())
          .user("idempotent-app").password("app-secret").prefix("elsewhere:").build()) {
        assertThatThrownBy(() -> outside.claim("k", "fp", "o", java.time.Duration.ofSeconds(5)))
            .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("NOPERM");
      }
    }
  }
}
