package io.idempotent.redis;

import io.idempotent.testservers.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The kit's Redis server ({@link TestServers#REDIS}, which reaches it or skips the test) as the tests use it:
 * database {@value #DATABASE}, and a key prefix of its own per test class, so tests never touch other data.
 */
final class TestRedis {

  /** The database index the tests use; nothing else is expected there. */
  static final int DATABASE = TestServers.RedisServer.DATABASE;

  static final String HOST = TestServers.REDIS.host;
  static final int PORT = TestServers.REDIS.port;

  private TestRedis() {}

  /**
   * Skips the calling test when Redis is unreachable, or fails it when servers are required. Call it
   * before each test (not in {@code @BeforeAll}), so that every skipped test is reported with the reason.
   */
  static void requireReachable() {
    TestServers.REDIS.requireReachable();
  }

  /** A new client on the test database; the caller closes it. */
  static RedisClient client() {
    return RedisClient.builder()
        .hostAndPort(new HostAndPort(HOST, PORT))
        .clientConfig(DefaultJedisClientConfig.builder().database(DATABASE).timeoutMillis(5_000).build())
        .build();
  }

  /** A prefix no other test run uses. */
  static String uniquePrefix(String what) {
    return "idempotent-test:" + what + ":" + UUID.randomUUID().toString().substring(0, 8) + ":";
  }

  /** A store with its own pool on the test database under {@code prefix}. */
  static RedisIdempotencyStore store(String prefix) {
    return RedisIdempotencyStore.builder().host(HOST).port(PORT).database(DATABASE).prefix(prefix).build();
  }

  /**
   * Deletes every key under {@code prefix} (a test's own, free of glob characters); nothing when Redis is
   * unreachable, where the test that wrote them was skipped (or failed, with the reason).
   */
  static void deleteAll(String prefix) {
    if (!TestServers.REDIS.problem().isEmpty()) {
      return;
    }
    // binary keys: hashed keys and lone surrogates are not valid UTF-8
    try (RedisClient redis = client()) {
      ScanParams match = new ScanParams().match((prefix + "*").getBytes(StandardCharsets.UTF_8)).count(1000);
      byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
      do {
        ScanResult<byte[]> page = redis.scan(cursor, match);
        if (!page.getResult().isEmpty()) {
          redis.del(page.getResult().toArray(byte[][]::new));
        }
        cursor = page.getCursorAsBytes();
      } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    }
  }
}
