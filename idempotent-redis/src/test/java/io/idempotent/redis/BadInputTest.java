package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/** Keys, results and failures that could break a Redis store. */
class BadInputTest {

  private static final Duration LONG = Duration.ofMinutes(10);

  record Line(String sku, int quantity) {}

  record Receipt(String id, List<Line> lines, Map<String, Instant> times, Optional<LocalDate> due) {}

  /** A result Jackson cannot write: its getter throws. */
  public static final class Unserializable {
    public String getValue() {
      throw new IllegalStateException("cannot be read");
    }
  }

  @SuppressWarnings("unused")
  private static List<Receipt> receipts() {
    return null;
  }

  @SuppressWarnings("unused")
  private static Optional<Map<String, List<Integer>>> nested() {
    return null;
  }

  private static Type returnType(String method) throws NoSuchMethodException {
    return BadInputTest.class.getDeclaredMethod(method).getGenericReturnType();
  }

  private final String prefix = TestRedis.uniquePrefix("bad");
  private RedisIdempotencyStore store;
  private Idempotency idempotency;

  @BeforeEach
  void open() {
    TestRedis.requireReachable();
    store = TestRedis.store(prefix);
    idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  @AfterEach
  void close() {
    if (store == null) {
      return;
    }
    store.close();
    TestRedis.deleteAll(prefix);
  }

  private static String owner() {
    return UUID.randomUUID().toString();
  }

  @Test
  void keys_thatOnlyExactBytesTellApart_areKeptApart() {
    List<String> keys = List.of("a", "a ", "A", " a", "a\u0000", "\u0000", "a\u0000b", "a\u0001b", "a\tb", "a\nb",
        "a\rb", "a\u007fb", "a\uD800", "a\uDC00", "a\uD800\uDC00", "a\uD83D\uDD11", "a?", "a\uFFFD",
        "o'neil", "o\"neil", "a\\", "a\\\\", "*", "?", "[a]", "x; FLUSHALL", "é", "e\u0301", "ß", "ss", "İ", "i",
        "ключ-🔑", "{tag}", "");
    String o = owner();
    for (int i = 0; i < keys.size(); i++) {
      String json = "\"" + i + "\"";
      assertThat(store.claim(keys.get(i), "fp", o, LONG).claimed()).as("claim #%d", i).isTrue();
      assertThat(store.complete(keys.get(i), o, StoredOutcome.value(i, () -> json), LONG)).isTrue();
    }
    for (int i = 0; i < keys.size(); i++) {
      ClaimResult again = store.claim(keys.get(i), "fp", owner(), LONG);
      assertThat(again.claimed()).as("again #%d", i).isFalse();
      assertThat(again.existing().outcome().json()).as("value #%d", i).isEqualTo("\"" + i + "\"");
      assertThat(again.existing().key()).isEqualTo(keys.get(i));
    }
  }

  @Test
  void keysOf100kB_areHashedByTheEngine_andByTheStoreForDirectUsers() {
    String base = UUID.randomUUID() + "x".repeat(100_000);
    AtomicInteger runs = new AtomicInteger();
    assertThat(idempotency.call("long", String.class).key(base + "1").run(() -> "one" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(idempotency.call("long", String.class).key(base + "2").run(() -> "two" + runs.incrementAndGet()))
        .isEqualTo("two2");
    assertThat(idempotency.call("long", String.class).key(base + "1").run(() -> "no" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(runs).hasValue(2);

    String direct = base + "direct";
    assertThat(store.claim(direct, "fp", owner(), LONG).claimed()).isTrue();
    assertThat(store.claim(direct, "fp", owner(), LONG).claimed()).isFalse();
    assertThat(store.claim(base + "direcT", "fp", owner(), LONG).claimed()).isTrue();
    assertThat(store.redisKey(direct).length).as("the Redis key is a digest, not 100 kB").isLessThan(200);
    assertThat(store.find(direct).orElseThrow().key()).isEqualTo(direct);
  }

  @Test
  void unserializableResult_failsClearly_releasesTheClaim_andWritesNothing() {
    String key = UUID.randomUUID().toString();
    assertThatThrownBy(() -> idempotency.call("bad", Object.class).key(key).run(Unserializable::new))
        .isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("Unserializable");
    assertThat(store.find(StoredKeys.compose("bad", null, key, store.maxKeyLength()))).isEmpty();
    assertThat(idempotency.call("bad", Object.class).key(key).execute(() -> "fine").replayed()).isFalse();
  }

  @Test
  void results_roundTripAsTheirDeclaredGenericTypes() throws Exception {
    String key = UUID.randomUUID().toString();
    List<Receipt> receipts = List.of(new Receipt("r1", List.of(new Line("sku-'\"\u0000\uD83D\uDD11", 2)),
        Map.of("paid", Instant.parse("2024-02-29T12:34:56.123456Z")), Optional.of(LocalDate.of(2025, 1, 31))),
        new Receipt("r2", List.of(), Map.of(), Optional.empty()));
    Object first = idempotency.call("receipts", returnType("receipts")).key(key).run(() -> receipts);
    CallResult<Object> replay = idempotency.call("receipts", returnType("receipts")).key(key).execute(() -> null);
    assertThat(replay.replayed()).isTrue();
    assertThat(replay.value()).isEqualTo(first).isEqualTo(receipts);

    Optional<Map<String, List<Integer>>> nested = Optional.of(Map.of("a", List.of(1, 2, 3)));
    idempotency.call("nested", returnType("nested")).key(key).run(() -> nested);
    assertThat(idempotency.call("nested", returnType("nested")).key(key).execute(() -> null).value()).isEqualTo(nested);
  }

  @Test
  void finalFailure_isStoredAsTypeAndMessage_andRethrown() {
    String key = UUID.randomUUID().toString();
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call("declined", String.class).key(key)
          .finalExceptions(IllegalArgumentException.class)
          .run(() -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("card declined \u0000 'quoted' ключ");
          }))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("card declined \u0000 'quoted' ключ");
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void failureMessages_areBoundedLikeTheTableStore() {
    String key = "long-message";
    String o = owner();
    store.claim(key, "fp", o, LONG);
    store.complete(key, o, StoredOutcome.failure("com.example.Declined", "m".repeat(10_000)), LONG);
    assertThat(store.find(key).orElseThrow().outcome().failureMessage()).hasSize(OutcomeFields.MAX_MESSAGE_LENGTH);
  }

  @Test
  void recordsOfAnotherProgram_underThePrefix_failClosed() {
    try (JedisPooled redis = TestRedis.client()) {
      redis.set(store.redisKey("a-string"), "not a hash".getBytes());
      redis.hset(store.redisKey("other-hash"), Map.of("state".getBytes(), "SOMETHING_ELSE".getBytes()));
    }
    for (String key : List.of("a-string", "other-hash")) {
      assertThatThrownBy(() -> store.claim(key, "fp", owner(), LONG))
          .isInstanceOf(io.idempotent.IdempotencyStoreException.class);
      assertThatThrownBy(() -> store.find(key)).isInstanceOf(io.idempotent.IdempotencyStoreException.class);
    }
  }

  @Test
  void durations_mustBePositive_andVeryLongOnesAreCut() {
    assertThatThrownBy(() -> store.claim("d", "fp", owner(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.claim("d", "fp", owner(), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    String o = owner();
    assertThat(store.claim("d", "fp", o, Duration.ofNanos(1)).claimed()).as("rounded up to 1 ms").isTrue();
    assertThat(store.claim("forever", "fp", o, Duration.ofSeconds(Long.MAX_VALUE)).claimed()).isTrue();
    assertThat(store.complete("forever", o, StoredOutcome.nullValue(), Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
    assertThat(store.find("forever")).isPresent();
  }
}
