package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.StoredKeys;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Keys, results and names that could break a SQL store, on every database. */
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

  /** The declared generic return types the replay must honour. */
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

  private static Idempotency engine(JdbiIdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void keys_thatOnlyEscapingOrExactCollationTellApart_areKeptApart(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    String run = UUID.randomUUID() + ":";
    List<String> keys = List.of("a", "a ", "A", "a  ", " a", "a\u0000", "a\\0", "a\\", "a\\\\", "\u0000",
        "a\uD800", "a\\uD800", "a\uDC00", "a\uD83D\uDD11", "o'neil", "o\"neil", "\\#abc",
        "x'; DROP TABLE idempotency_record; --", "é", "e\u0301", "ß", "ss", "İ", "i");
    String owner = UUID.randomUUID().toString();
    for (int i = 0; i < keys.size(); i++) {
      String k = run + keys.get(i);
      String json = "\"" + i + "\"";
      assertThat(store.claim(k, "fp", owner, LONG).claimed()).as("claim #%d", i).isTrue();
      assertThat(store.complete(k, owner, StoredOutcome.value(i, () -> json), LONG)).isTrue();
    }
    for (int i = 0; i < keys.size(); i++) {
      String k = run + keys.get(i);
      var again = store.claim(k, "fp", UUID.randomUUID().toString(), LONG);
      assertThat(again.claimed()).as("again #%d", i).isFalse();
      assertThat(again.existing().outcome().json()).as("value #%d", i).isEqualTo("\"" + i + "\"");
      assertThat(again.existing().key()).isEqualTo(k);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void keysOf10kB_areHashedToFit_andStayDistinct(TestDatabase db) throws Exception {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    Idempotency idempotency = engine(store);
    String base = UUID.randomUUID() + "x".repeat(10_000);
    AtomicInteger runs = new AtomicInteger();
    assertThat(idempotency.call("long", String.class).key(base + "1").run(() -> "one" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(idempotency.call("long", String.class).key(base + "2").run(() -> "two" + runs.incrementAndGet()))
        .isEqualTo("two2");
    assertThat(idempotency.call("long", String.class).key(base + "1").run(() -> "no" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(runs).hasValue(2);
    // a store user that bypasses the engine gets the same protection inside the store
    String owner = UUID.randomUUID().toString();
    assertThat(store.claim(base + "direct", "fp", owner, LONG).claimed()).isTrue();
    assertThat(store.claim(base + "direct", "fp", UUID.randomUUID().toString(), LONG).claimed()).isFalse();
    assertThat(store.claim(base + "direcT", "fp", owner, LONG).claimed()).isTrue();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void unserializableResult_failsClearly_releasesTheClaim_andWritesNothing(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    Idempotency idempotency = engine(store);
    String key = UUID.randomUUID().toString();
    assertThatThrownBy(() -> idempotency.call("bad", Object.class).key(key).run(Unserializable::new))
        .isInstanceOf(IdempotencyResultException.class);
    assertThat(store.find(StoredKeys.compose("bad", null, key, store.maxKeyLength()))).isEmpty();
    assertThat(idempotency.call("bad", Object.class).key(key).execute(() -> "fine").replayed()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void results_roundTripAsTheirDeclaredGenericTypes(TestDatabase db) throws Exception {
    db.requireReachable();
    Idempotency idempotency = engine(db.storeBuilder().build());
    String key = UUID.randomUUID().toString();
    List<Receipt> receipts = List.of(new Receipt("r1", List.of(new Line("sku-'\"\u0000", 2)),
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

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void results_withLoneSurrogates_replayUnchanged(TestDatabase db) {
    db.requireReachable();
    Idempotency idempotency = engine(db.storeBuilder().build());
    String key = UUID.randomUUID().toString();
    // lone surrogates cannot be encoded as UTF-8: a driver would store them as '?'
    List<String> value = List.of("\uD83D", "\uDE00x", "a\uD83D\uDE00b", "\uDE00\uD83D", "\\uD83D");
    idempotency.call("surrogates", List.class).key(key).run(() -> value);
    CallResult<List> replay = idempotency.call("surrogates", List.class).key(key).execute(() -> null);
    assertThat(replay.replayed()).isTrue();
    assertThat(replay.value()).isEqualTo(value);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void finalFailure_isStoredAsTypeAndMessage_andRethrown(TestDatabase db) {
    db.requireReachable();
    Idempotency idempotency = engine(db.storeBuilder().build());
    String key = UUID.randomUUID().toString();
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call("declined", String.class).key(key)
          .finalExceptions(IllegalArgumentException.class)
          .run(() -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("card declined \u0000 'quoted'");
          }))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("card declined");
    }
    assertThat(runs).hasValue(1);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void durationsBeyondACentury_areCapped_notOverflowed(TestDatabase db) {
    db.requireReachable();
    JdbiIdempotencyStore store = db.storeBuilder().build();
    String key = UUID.randomUUID().toString();
    String owner = UUID.randomUUID().toString();
    Duration forever = java.time.temporal.ChronoUnit.FOREVER.getDuration();
    assertThat(store.claim(key, "fp", owner, forever).claimed()).isTrue();
    assertThat(store.renew(key, owner, forever)).isTrue();
    assertThat(store.complete(key, owner, StoredOutcome.nullValue(), forever)).isTrue();
    assertThat(store.find(key)).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {"t; DROP TABLE x", "idempotency_record--", "a.b.c", "1table", "", "\"quoted\"",
      "tab le", "tábla", "x'y", "a.", ".a", "x)", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void tableNames_withSqlInThem_areRejected(String name) {
    assertThatThrownBy(() -> JdbiIdempotencyStore.builder(TestDatabase.H2.jdbi()).table(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid table name");
  }
}
