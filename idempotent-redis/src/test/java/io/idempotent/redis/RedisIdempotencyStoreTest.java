package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** What this store does beyond the contract: its layout in Redis, takeovers, prefixes, its builder. */
class RedisIdempotencyStoreTest {

  private final String prefix = TestRedis.uniquePrefix("store");
  private RedisIdempotencyStore store;
  private RedisClient redis;

  @BeforeEach
  void open() {
    TestRedis.requireReachable();
    store = TestRedis.store(prefix);
    redis = TestRedis.client();
  }

  @AfterEach
  void close() {
    if (redis == null) {
      return;
    }
    store.close();
    redis.close();
    TestRedis.deleteAll(prefix);
  }

  /** The grace of a 30 s or 60 s lease: ten leases, capped at an hour. */
  private static final long GRACE_30S_MS = 300_000L;
  private static final long GRACE_60S_MS = 600_000L;

  private Map<String, String> hash(String key) {
    Map<String, String> out = new TreeMap<>();
    redis.hgetAll(store.redisKey(key)).forEach((k, v) ->
        out.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void completedRecord_reportsItsRemainingLifetime_byRedisClock() {
    store.claim("order-2", "fp", "owner", Duration.ofSeconds(30));
    store.complete("order-2", "owner", StoredOutcome.nullValue(), Duration.ofMinutes(10));
    assertThat(store.find("order-2").orElseThrow().expiresIn())
        .isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
    ClaimResult again = store.claim("order-2", "fp", "other", Duration.ofSeconds(30));
    assertThat(again.existing().expiresIn()).isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
  }

  @Test
  void layout_isOneHashPerKey_underThePrefix_withRedisExpiries() {
    assertThat(new String(store.redisKey("order-1"), StandardCharsets.UTF_8)).isEqualTo(prefix + "order-1");
    store.claim("order-1", "fp-1", "owner-1", Duration.ofSeconds(30));
    Map<String, String> claimed = hash("order-1");
    assertThat(claimed.remove("claim_id")).as("a random id per claim sent").matches("[0-9a-f]{32}");
    assertThat(claimed).containsExactlyEntriesOf(new TreeMap<>(Map.of(
        "state", "IN_PROGRESS", "fingerprint", "fp-1", "owner", "owner-1", "lease_ms", "30000",
        "grace_ms", String.valueOf(GRACE_30S_MS))));
    assertThat(redis.pttl(store.redisKey("order-1"))).as("kept ten leases' grace after the lease")
        .isBetween(GRACE_30S_MS + 29_000L, GRACE_30S_MS + 30_000L);

    store.complete("order-1", "owner-1", StoredOutcome.value(42, () -> "{\"id\":42}"), Duration.ofHours(1));
    Map<String, String> completed = hash("order-1");
    assertThat(completed.remove("completion_id")).as("a random id per completion sent").matches("[0-9a-f]{32}");
    assertThat(completed).containsExactlyEntriesOf(new TreeMap<>(Map.of(
        "state", "COMPLETED", "fingerprint", "fp-1", "kind", "VALUE", "json", "{\"id\":42}")));
    assertThat(redis.pttl(store.redisKey("order-1"))).isBetween(3_599_000L, 3_600_000L);

    store.claim("order-2", "", "owner-2", Duration.ofSeconds(30));
    store.complete("order-2", "owner-2", StoredOutcome.failure("com.example.Declined", "no"), Duration.ofHours(1));
    assertThat(hash("order-2")).containsEntry("kind", "FAILURE").containsEntry("failure_type", "com.example.Declined")
        .containsEntry("failure_message", "no").doesNotContainKey("owner");
  }

  @Test
  void renew_extendsTheRedisExpiry() {
    store.claim("k", "fp", "o", Duration.ofSeconds(1));
    assertThat(store.renew("k", "o", Duration.ofSeconds(60))).isTrue();
    assertThat(redis.pttl(store.redisKey("k"))).isBetween(GRACE_60S_MS + 59_000L, GRACE_60S_MS + 60_000L);
    assertThat(hash("k")).containsEntry("lease_ms", "60000").containsEntry("grace_ms", String.valueOf(GRACE_60S_MS));
  }

  @Test
  void expiredInProgress_isReportedAsTakenOver_expiredCompletedAsAcquired() throws Exception {
    // leases of 400 ms: past 400 the lease has run out, until 800 the hash remains
    store.claim("a", "fp", "o", Duration.ofMillis(400));
    store.claim("b", "fp", "o", Duration.ofMillis(400));
    store.complete("b", "o", StoredOutcome.nullValue(), Duration.ofMillis(400));
    Thread.sleep(500);
    assertThat(store.find("a")).isEmpty();
    assertThat(store.claim("a", "fp", "p", Duration.ofSeconds(5)).status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
    assertThat(store.claim("b", "fp", "p", Duration.ofSeconds(5)).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
    assertThat(store.find("a").orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
  }

  @Test
  void inProgressPastItsLease_isKeptAsExpiredForItsGrace_thenAClaimTakesItOver() throws Exception {
    store.claim("a", "fp", "o", Duration.ofMillis(100));
    Thread.sleep(200);
    assertThat(redis.exists(store.redisKey("a"))).as("kept for a late owner").isTrue();
    assertThat(redis.pttl(store.redisKey("a"))).as("ten leases of grace").isLessThanOrEqualTo(1_000L);
    assertThat(store.find("a")).isEmpty();
    assertThat(store.claim("a", "fp", "p", Duration.ofSeconds(5)).status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
  }

  @Test
  void inProgressHashWrittenBeforeGraceExisted_countsOneLeaseAsItsGrace() throws Exception {
    // the layout of earlier versions: no grace_ms, the hash kept two leases
    byte[] k = store.redisKey("legacy");
    redis.hset(k, Map.of("state".getBytes(StandardCharsets.UTF_8), "IN_PROGRESS".getBytes(StandardCharsets.UTF_8),
        "fingerprint".getBytes(StandardCharsets.UTF_8), "fp".getBytes(StandardCharsets.UTF_8),
        "owner".getBytes(StandardCharsets.UTF_8), "o".getBytes(StandardCharsets.UTF_8),
        "lease_ms".getBytes(StandardCharsets.UTF_8), "1000".getBytes(StandardCharsets.UTF_8)));
    redis.pexpire(k, 2_000);
    assertThat(store.find("legacy")).as("within its lease").isPresent();
    assertThat(store.claim("legacy", "fp", "p", Duration.ofSeconds(5)).claimed()).isFalse();
    Thread.sleep(1_100);
    assertThat(store.find("legacy")).as("past its lease").isEmpty();
    assertThat(store.claim("legacy", "fp", "p", Duration.ofSeconds(5)).status())
        .isEqualTo(ClaimResult.Status.TAKEN_OVER);
  }

  @Test
  void expiredButNotTakenOver_ownerMayStillFinish_likeTheInMemoryStores() throws Exception {
    store.claim("a", "fp", "o", Duration.ofMillis(400));
    Thread.sleep(500);
    assertThat(store.complete("a", "o", StoredOutcome.nullValue(), Duration.ofMinutes(1))).isTrue();
    assertThat(store.find("a").orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void prefixes_separateStoresOnOneServer() {
    try (RedisIdempotencyStore other = TestRedis.store(prefix + "other:")) {
      assertThat(store.claim("k", "fp", "o", Duration.ofMinutes(1)).claimed()).isTrue();
      assertThat(other.claim("k", "fp", "o", Duration.ofMinutes(1)).claimed()).isTrue();
      assertThat(other.find("k").orElseThrow().owner()).isEqualTo("o");
    }
  }

  @Test
  void purgeExpired_leavesExpiryToRedis() {
    assertThat(store.purgeExpired(100)).isZero();
  }

  @Test
  void builder_withAClient_leavesItOpen_andRefusesConnectionSettingsBesideIt() {
    try (RedisClient client = TestRedis.client()) {
      RedisIdempotencyStore onClient = RedisIdempotencyStore.builder().client(client).prefix(prefix).build();
      assertThat(onClient.claim("c", "fp", "o", Duration.ofMinutes(1)).claimed()).isTrue();
      onClient.close();
      assertThat(client.ping()).isEqualTo("PONG");
      assertThatThrownBy(() -> RedisIdempotencyStore.builder().client(client).port(6380).build())
          .isInstanceOf(IllegalStateException.class);
    }
    assertThatThrownBy(() -> RedisIdempotencyStore.builder().maxKeyLength(10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisIdempotencyStore.builder().host(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisIdempotencyStore.builder().poolSize(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
