package io.idempotent.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Keys, results and durations that could break a store: keys that only exact characters tell apart
 * (collations, escaping, NUL, lone surrogates, glob and SQL characters; composed for the store's
 * {@link io.idempotent.spi.KeyLimits#keyRules()} as the engine composes them), keys far beyond the store's limit,
 * results that cannot be written, generic results, values in slots declared {@code Object} (generated
 * with jqwik arbitraries: each must replay the same, classes included, at every depth), map keys with lone
 * surrogates, and durations as long as a {@link Duration} goes. A
 * store's test is a small subclass that says how to create the store; it may add tests of its own hostile
 * inputs (table names, foreign records under its prefix):
 *
 * <pre>{@code
 * class MyStoreHostileInputTest extends HostileInputContract {
 *   protected IdempotencyStore createStore() { return new MyStore(...); }
 * }
 * }</pre>
 *
 * Keys are unique per test run, so stores backed by a shared table need no cleaning between tests.
 */
public abstract class HostileInputContract {

  /** Long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(10);

  /** The store under test, created before each test. */
  protected IdempotencyStore store;
  /** An engine on {@link #store}. */
  protected Idempotency idempotency;
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  /** A fresh store (it may share its backing table with earlier tests). */
  protected abstract IdempotencyStore createStore() throws Exception;

  /** Closes what {@link #createStore()} opened; by default {@link IdempotencyStore#close()}. */
  protected void closeStore(IdempotencyStore store) throws Exception {
    store.close();
  }

  @BeforeEach
  void openStore() throws Exception {
    store = createStore();
    idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  @AfterEach
  void shutStore() throws Exception {
    if (store != null) {
      closeStore(store);
    }
  }

  /** A key (or namespace) no other test run uses. */
  protected String key(String name) {
    return "hostile:" + run + ":" + name;
  }

  /** A new owner token. */
  protected static String owner() {
    return UUID.randomUUID().toString();
  }

  record Line(String sku, int quantity) {}

  record Receipt(String id, List<Line> lines, Map<String, Instant> times, Optional<LocalDate> due) {}

  /** A result that cannot be written as JSON: its getter throws. */
  public static final class Unserializable {
    @SuppressWarnings("DoNotCallSuggester") // the JSON writer calls it: its failure is what the contract tests
    public String getValue() {
      throw new IllegalStateException("cannot be read");
    }
  }

  /** The declared generic return types a replay must honour. */
  @SuppressWarnings("unused")
  private static List<Receipt> receipts() {
    return null;
  }

  @SuppressWarnings("unused")
  private static Optional<Map<String, List<Integer>>> nested() {
    return null;
  }

  @SuppressWarnings("unused")
  private static Map<String, Object> mapOfObjects() {
    return null;
  }

  @SuppressWarnings("unused")
  private static Map<String, String> mapOfStrings() {
    return null;
  }

  /** A record whose components are open slots: declared {@code Object}, or containers of it. */
  record Slots(Object value, List<Object> values, Map<String, Object> named) {}

  /** A value class as applications write them (private fields, a constructor), with rows of open slots. */
  static final class Report {
    private final String title;
    private final List<Map<String, Object>> rows;

    Report(String title, List<Map<String, Object>> rows) {
      this.title = title;
      this.rows = rows;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Report r && Objects.equals(r.title, title) && Objects.equals(r.rows, rows);
    }

    @Override
    public int hashCode() {
      return Objects.hash(title, rows);
    }
  }

  /** Records {@code value} as {@code type} under {@code ns}, then replays it: the replayed value. */
  private Object recordAndReplay(String ns, Type type, Object value) {
    assertThat(idempotency.call(ns, type).key("k").run(() -> value)).isSameAs(value);
    CallResult<Object> replay = idempotency.call(ns, type).key("k").execute(() -> {
      throw new AssertionError("ran again instead of replaying");
    });
    assertThat(replay.replayed()).isTrue();
    return replay.value();
  }

  private static Type returnType(String method) throws NoSuchMethodException {
    return HostileInputContract.class.getDeclaredMethod(method).getGenericReturnType();
  }

  @Test
  void keys_thatOnlyExactCharactersTellApart_areKeptApart() {
    List<String> keys = List.of("a", "a ", "A", "a  ", " a", "a\u0000", "\u0000", "a\u0000b", "a\\0", "a\u0001b",
        "a\tb", "a\nb", "a\rb", "a\u007fb", "a\uD800", "a\\uD800", "a\uDC00", "a\uD800\uDC00", "a\uD83D\uDD11",
        "a?", "a\uFFFD", "o'neil", "o\"neil", "a\\", "a\\\\", "\\#abc", "*", "?", "[a]", "{tag}",
        "x'; DROP TABLE idempotency_record; --", "x; FLUSHALL", "é", "e\u0301", "ß", "ss", "İ", "i", "ключ-🔑", "");
    String o = owner();
    String ns = key("exact");
    for (int i = 0; i < keys.size(); i++) {
      String k = StoredKeys.compose(ns, null, keys.get(i), KeyLimits.rulesOf(store));
      String json = "\"" + i + "\"";
      assertThat(store.claim(k, "fp", o, LONG).claimed()).as("claim #%d", i).isTrue();
      assertThat(store.complete(k, o, StoredOutcome.value(i, () -> json), LONG)).as("complete #%d", i).isTrue();
    }
    for (int i = 0; i < keys.size(); i++) {
      String k = StoredKeys.compose(ns, null, keys.get(i), KeyLimits.rulesOf(store));
      ClaimResult again = store.claim(k, "fp", owner(), LONG);
      assertThat(again.claimed()).as("again #%d", i).isFalse();
      assertThat(again.existing().outcome().json()).as("value #%d", i).isEqualTo("\"" + i + "\"");
      assertThat(again.existing().key()).isEqualTo(k);
    }
  }

  /**
   * Keys of 100 kB: the engine hashes them to fit. A store that takes keys of any length keeps one from
   * another caller as given; a store with a limit refuses it rather than keep something else.
   */
  @Test
  void keysOf100kB_areHashedByTheEngine_andStayDistinct() {
    String base = key("x".repeat(100_000));
    String ns = key("long");
    AtomicInteger runs = new AtomicInteger();
    assertThat(idempotency.call(ns, String.class).key(base + "1").run(() -> "one" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(idempotency.call(ns, String.class).key(base + "2").run(() -> "two" + runs.incrementAndGet()))
        .isEqualTo("two2");
    assertThat(idempotency.call(ns, String.class).key(base + "1").run(() -> "no" + runs.incrementAndGet()))
        .isEqualTo("one1");
    assertThat(runs).hasValue(2);
    assertThat(store.find(StoredKeys.compose(ns, null, base + "2", KeyLimits.rulesOf(store))).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);

    String direct = base + "direct";
    String owner = owner();
    if (KeyLimits.rulesOf(store).accepts(direct)) {
      assertThat(store.claim(direct, "fp", owner, LONG).claimed()).isTrue();
      assertThat(store.claim(direct, "fp", owner(), LONG).claimed()).isFalse();
      assertThat(store.claim(base + "direcT", "fp", owner, LONG).claimed()).isTrue();
      assertThat(store.find(direct).orElseThrow().key()).isEqualTo(direct);
    } else {
      assertThatThrownBy(() -> store.claim(direct, "fp", owner, LONG)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining("xxxxxxxx");
    }
  }

  @Test
  void unserializableResult_failsClearly_releasesTheClaim_andWritesNothing() {
    String ns = key("bad");
    assertThatThrownBy(() -> idempotency.call(ns, Unserializable.class).key("k").run(Unserializable::new))
        .isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("Unserializable");
    assertThat(store.find(StoredKeys.compose(ns, null, "k", KeyLimits.rulesOf(store)))).isEmpty();
    assertThat(idempotency.call(ns, Object.class).key("k").execute(() -> "fine").replayed()).isFalse();
  }

  /**
   * Values of the closed list in open slots, nested in lists, sets and maps of every kind the JDK makes
   * (mutable and unmodifiable, nulls inside), as the declared root, as a map value beside keys with lone
   * surrogates, and as record components: each replay equals the original, classes included at every depth.
   */
  @Test
  void openSlots_holdingValuesOfTheClosedList_replayTheSameClassesAtEveryDepth() throws Exception {
    Type mapOfObjects = returnType("mapOfObjects");
    AtomicInteger tries = new AtomicInteger();
    OpenSlotSamples.forAll(OpenSlotSamples.values(3), 120, value -> {
      int i = tries.getAndIncrement();
      String ns = key("open:" + i);
      switch (i % 3) {
        case 0 -> OpenSlotSamples.assertSameDeep(value, recordAndReplay(ns, Object.class, value), "result");
        case 1 -> {
          Map<String, Object> map = new LinkedHashMap<>();
          map.put("value", value);
          map.put("k\uDC00", List.of(1L));
          map.put("\uD800", null);
          OpenSlotSamples.assertSameDeep(map, recordAndReplay(ns, mapOfObjects, map), "result");
        }
        default -> {
          List<Object> values = new ArrayList<>();
          values.add(value);
          values.add(null);
          Map<String, Object> named = new LinkedHashMap<>(Map.of("v", value == null ? "none" : value));
          Slots replayed = (Slots) recordAndReplay(ns, Slots.class, new Slots(value, values, named));
          OpenSlotSamples.assertSameDeep(value, replayed.value(), "result.value");
          OpenSlotSamples.assertSameDeep(values, replayed.values(), "result.values");
          OpenSlotSamples.assertSameDeep(named, replayed.named(), "result.named");
        }
      }
    });
  }

  /** Map keys and strings with lone surrogates (which UTF-8 cannot carry) replay exactly. */
  @Test
  void mapKeysAndStrings_withLoneSurrogates_replayExactly() throws Exception {
    Type mapOfStrings = returnType("mapOfStrings");
    Type mapOfObjects = returnType("mapOfObjects");
    AtomicInteger tries = new AtomicInteger();
    OpenSlotSamples.forAll(net.jqwik.api.Arbitraries.maps(OpenSlotSamples.strings(), OpenSlotSamples.strings())
        .ofMinSize(1).ofMaxSize(4), 60, generated -> {
      int i = tries.getAndIncrement();
      Map<String, Object> map = new LinkedHashMap<>(generated);
      Type declared = i % 2 == 0 ? mapOfStrings : mapOfObjects;
      OpenSlotSamples.assertSameDeep(map, recordAndReplay(key("surrogate-keys:" + i), declared, map), "result");
    });
  }

  @Test
  void mapKey_withALoneSurrogate_replaysExactly() throws Exception {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("k\uDC00", "low");
    map.put("\uD800", "high");
    map.put("\uDC00\uD800", "reversed");
    Object replayed = recordAndReplay(key("surrogate-key"), returnType("mapOfStrings"), map);
    assertThat(replayed).isEqualTo(map);
    assertThat(new ArrayList<Object>(((Map<?, ?>) replayed).keySet())).containsExactlyElementsOf(map.keySet());
  }

  @Test
  void openSlot_holdingALong_replaysALong() {
    assertThat(recordAndReplay(key("long"), Object.class, 5L)).isExactlyInstanceOf(Long.class).isEqualTo(5L);
    assertThat(recordAndReplay(key("int"), Object.class, 5)).isExactlyInstanceOf(Integer.class).isEqualTo(5);
  }

  @Test
  void mapOfObjects_holdingAnAmount_keepsItsScale() throws Exception {
    Map<String, Object> order = new LinkedHashMap<>(Map.of("total", new BigDecimal("19.990")));
    Map<?, ?> replayed = (Map<?, ?>) recordAndReplay(key("scale"), returnType("mapOfObjects"), order);
    assertThat(replayed.get("total")).isExactlyInstanceOf(BigDecimal.class).isEqualTo(new BigDecimal("19.990"));
    assertThat(((BigDecimal) replayed.get("total")).scale()).isEqualTo(3);
  }

  @Test
  void mapOfObjects_holdingADateAndAnInstant_replaysThemAsSuch() throws Exception {
    Map<String, Object> times = new LinkedHashMap<>();
    times.put("due", LocalDate.of(2025, 1, 31));
    times.put("paid", Instant.parse("2024-02-29T12:34:56.123456789Z"));
    Map<?, ?> replayed = (Map<?, ?>) recordAndReplay(key("times"), returnType("mapOfObjects"), times);
    assertThat(replayed.get("due")).isExactlyInstanceOf(LocalDate.class).isEqualTo(times.get("due"));
    assertThat(replayed.get("paid")).isExactlyInstanceOf(Instant.class).isEqualTo(times.get("paid"));
  }

  @Test
  void valueClass_holdingRowsOfOpenSlots_replaysEqual() {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("sku", "A-1");
    row.put("quantity", 3L);
    row.put("price", new BigDecimal("4.50"));
    row.put("tags", new ArrayList<>(List.of("new", "sale")));
    row.put("note", null);
    List<Map<String, Object>> rows = new ArrayList<>(List.of(row));
    Report report = new Report("daily", rows);
    Report replayed = (Report) recordAndReplay(key("report"), Report.class, report);
    assertThat(replayed).isEqualTo(report);
    OpenSlotSamples.assertSameDeep(row, replayed.rows.get(0), "result.rows[0]");
  }

  /** What an open slot holds may be mutable: a caller changing it afterwards changes no replay, on any store. */
  @Test
  void openSlot_holdingAMutableList_isNotChangedByTheCallerMutatingIt() {
    String ns = key("mutated");
    List<Object> list = new ArrayList<>(List.of(1L, "a"));
    Slots slots = new Slots(list, new ArrayList<>(), new LinkedHashMap<>());
    assertThat(idempotency.call(ns, Object.class).key("k").run(() -> list)).isSameAs(list);
    assertThat(idempotency.call(ns + ":record", Slots.class).key("k").run(() -> slots)).isSameAs(slots);
    list.add("changed by the caller");
    assertThat(idempotency.call(ns, Object.class).key("k").execute(() -> null).value()).isEqualTo(List.of(1L, "a"));
    assertThat(idempotency.call(ns + ":record", Slots.class).key("k").execute(() -> null).value().value())
        .isEqualTo(List.of(1L, "a"));
  }

  /** A value off the closed list is refused when the call is recorded: the key is released, nothing written. */
  @Test
  void openSlot_holdingARecord_isRefusedNamingThePath_andNothingIsWritten() {
    String ns = key("refused");
    Slots slots = new Slots(new Line("sku", 1), new ArrayList<>(), new LinkedHashMap<>());
    assertThatThrownBy(() -> idempotency.call(ns, Slots.class).key("k").run(() -> slots))
        .isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("the result.value")
        .hasMessageContaining(Line.class.getName())
        .hasMessageContaining("declare a concrete type");
    assertThat(store.find(StoredKeys.compose(ns, null, "k", KeyLimits.rulesOf(store)))).isEmpty();
    assertThatThrownBy(() -> idempotency.call(ns + ":root", Object.class).key("k").run(() -> new Line("sku", 2)))
        .isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("at the result,")
        .hasMessageContaining(Line.class.getName());
    assertThat(idempotency.call(ns, Slots.class).key("k").execute(() -> null).replayed()).isFalse();
  }

  @Test
  void results_roundTripAsTheirDeclaredGenericTypes() throws Exception {
    String ns = key("receipts");
    List<Receipt> receipts = List.of(new Receipt("r1", List.of(new Line("sku-'\"\u0000\uD83D\uDD11", 2)),
        Map.of("paid", Instant.parse("2024-02-29T12:34:56.123456Z")), Optional.of(LocalDate.of(2025, 1, 31))),
        new Receipt("r2", List.of(), Map.of(), Optional.empty()));
    Object first = idempotency.call(ns, returnType("receipts")).key("k").run(() -> receipts);
    CallResult<Object> replay = idempotency.call(ns, returnType("receipts")).key("k").execute(() -> null);
    assertThat(replay.replayed()).isTrue();
    assertThat(replay.value()).isEqualTo(first).isEqualTo(receipts);

    Optional<Map<String, List<Integer>>> nested = Optional.of(Map.of("a", List.of(1, 2, 3)));
    idempotency.call(ns + ":nested", returnType("nested")).key("k").run(() -> nested);
    assertThat(idempotency.call(ns + ":nested", returnType("nested")).key("k").execute(() -> null).value())
        .isEqualTo(nested);
  }

  /** Lone surrogates cannot be encoded as UTF-8: a careless store would keep them as '?'. */
  @Test
  void results_withLoneSurrogates_replayUnchanged() {
    String ns = key("surrogates");
    List<String> value = List.of("\uD83D", "\uDE00x", "a\uD83D\uDE00b", "\uDE00\uD83D", "\\uD83D");
    idempotency.call(ns, List.class).key("k").run(() -> value);
    @SuppressWarnings("rawtypes")
    CallResult<List> replay = idempotency.call(ns, List.class).key("k").execute(() -> null);
    assertThat(replay.replayed()).isTrue();
    List<?> replayed = replay.value();
    assertThat(replayed).isEqualTo(value);
  }

  @Test
  void finalFailure_isStoredAsTypeAndMessage_andRethrown() {
    String ns = key("declined");
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call(ns, String.class).key("k")
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

  /** Leases and TTLs as long as a {@code Duration} goes: the store caps them rather than overflow. */
  @Test
  void durationsAsLongAsTheyGo_areCapped_notOverflowed() {
    String k = key("forever");
    String owner = owner();
    Duration forever = ChronoUnit.FOREVER.getDuration();
    assertThat(store.claim(k, "fp", owner, forever).claimed()).isTrue();
    assertThat(store.claim(k, "fp", owner(), LONG).claimed()).as("the claim is live").isFalse();
    assertThat(store.renew(k, owner, forever)).isTrue();
    assertThat(store.complete(k, owner, StoredOutcome.nullValue(), forever)).isTrue();
    assertThat(store.find(k)).isPresent();
  }
}
