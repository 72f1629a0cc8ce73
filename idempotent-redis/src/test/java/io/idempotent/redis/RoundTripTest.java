package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Counts the round trips a call costs, from the server's own statistics ({@code evalsha} and {@code eval}
 * are what the client sends; other entries are the commands the scripts run inside the server), on a
 * Redis of the test's own: resetting statistics on a shared server would disturb others.
 */
class RoundTripTest {

  /** Calls of each command since the last reset, from {@code INFO commandstats}. */
  private static Map<String, Long> calls(Jedis redis) {
    Map<String, Long> out = new HashMap<>();
    for (String line : redis.info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        String calls = line.substring(line.indexOf("calls=") + "calls=".length());
        out.put(name, Long.parseLong(calls.substring(0, calls.indexOf(','))));
      }
    }
    return out;
  }

  @Test
  void firstCall_costsTwoScripts_replayOne_andAFreshServerIsTaughtTheScripts() throws Exception {
    try (PrivateRedis server = PrivateRedis.launch();
        Jedis redis = server.admin();
        RedisIdempotencyStore store = server.store()) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());

      // a fresh server does not know the scripts: NOSCRIPT, then EVAL teaches it; the store's first call
      // also checks its settings against those kept in Redis, once
      assertThat(idempotency.call("warm", String.class).key("w").run(() -> "w")).isEqualTo("w");
      assertThat(calls(redis)).containsEntry("eval", 3L);

      redis.configResetStat();
      assertThat(idempotency.call("rt", String.class).key("k").execute(() -> "v").replayed()).isFalse();
      Map<String, Long> first = calls(redis);
      assertThat(first).containsEntry("evalsha", 2L).doesNotContainKey("eval");

      redis.configResetStat();
      assertThat(idempotency.call("rt", String.class).key("k").execute(() -> "other").replayed()).isTrue();
      Map<String, Long> replay = calls(redis);
      assertThat(replay).containsEntry("evalsha", 1L).doesNotContainKey("eval");
      replay.remove("evalsha");
      replay.remove("info");
      replay.remove("config|resetstat");
      assertThat(replay.keySet()).as("a replay sends no other command and its script only reads")
          .isSubsetOf("hmget", "pttl", "exists");

      // scripts flushed (or a failover to a server that never saw them): the fallback teaches them again
      redis.scriptFlush();
      assertThat(idempotency.call("rt", String.class).key("k2").run(() -> "v2")).isEqualTo("v2");
      assertThat(idempotency.call("rt", String.class).key("k2").run(() -> "no")).isEqualTo("v2");
    }
  }
}
