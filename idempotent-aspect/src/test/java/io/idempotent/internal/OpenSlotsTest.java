package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.util.StdConverter;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.text.JsonText;
import io.idempotent.spi.ResultCodec;
import java.io.Serializable;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Open slots (declared {@code Object}, {@code Number}, {@code Serializable}, wildcards) in the default
 * codec: what they store, which JDK classes come back as themselves, what is refused when written and
 * when read, and that types without open slots are written exactly as before.
 */
class OpenSlotsTest {

  private final JacksonResultCodec codec = JacksonResultCodec.shared();

  record Line(String sku, int quantity) {}

  record Holder(Object payload) {}

  record Amounts(Number amount, Serializable note) {}

  /** A concrete value class as applications write them; no open slot. */
  record Invoice(String id, BigDecimal total, List<Line> lines, Map<String, LocalDate> dates, Optional<Long> ref) {}

  /** Writes itself as its text: a converter would bypass the type id of the slot it is in. */
  @JsonSerialize(converter = Code.AsText.class)
  record Code(String text) {
    static final class AsText extends StdConverter<Code, String> {
      @Override
      public String convert(Code value) {
        return value.text;
      }
    }
  }

  /** Writes itself as its value, or as null when it has none. */
  static final class Label {
    private final String text;

    Label(String text) {
      this.text = text;
    }

    @JsonValue
    String text() {
      return text;
    }
  }

  static Map<String, Object> mapOfObjects;
  static List<?> listOfWildcards;
  static Map<Object, String> objectKeys;
  static Object[] arrayOfObjects;
  static Optional<Object> optionalObject;

  private static Type typeOf(String field) throws NoSuchFieldException {
    return OpenSlotsTest.class.getDeclaredField(field).getGenericType();
  }

  private Object roundTrip(Object value, Type type) {
    return codec.decode(codec.encode(value, type), type);
  }

  @Test
  void encode_openSlots_writeTagsForWhatPlainJsonWouldChange() throws Exception {
    assertThat(codec.encode(5L, Object.class)).isEqualTo("[\"Long\",5]");
    assertThat(codec.encode(5, Object.class)).isEqualTo("5");
    assertThat(codec.encode("x", Object.class)).isEqualTo("\"x\"");
    assertThat(codec.encode(Double.NaN, Object.class)).isEqualTo("[\"Double\",\"NaN\"]");
    assertThat(codec.encode(new LinkedHashMap<>(Map.of("total", new BigDecimal("19.990"))), typeOf("mapOfObjects")))
        .isEqualTo("{\"total\":[\"BigDecimal\",19.990]}");
    assertThat(codec.encode(new Holder(new ArrayList<>(List.of(1L))), Holder.class))
        .isEqualTo("{\"payload\":[\"ArrayList\",[[\"Long\",1]]]}");
  }

  @Test
  void encode_typesWithoutOpenSlots_areWrittenExactlyAsWithoutThem() {
    JacksonResultCodec plain = new JacksonResultCodec(JacksonResultCodec.resultMapper().build());
    Invoice invoice = new Invoice("i-1", new BigDecimal("19.990"), List.of(new Line("a", 2)),
        Map.of("due", LocalDate.of(2025, 1, 31)), Optional.of(7L));
    String json = codec.encode(invoice, Invoice.class);
    assertThat(json).isEqualTo(plain.encode(invoice, Invoice.class));
    assertThat(codec.decode(json, Invoice.class)).isEqualTo(invoice);
  }

  @Test
  void roundTrip_openSlotsInEveryPosition_keepClasses() throws Exception {
    assertThat(roundTrip(Long.MAX_VALUE, Object.class)).isExactlyInstanceOf(Long.class).isEqualTo(Long.MAX_VALUE);
    assertThat(roundTrip(-0.0, Object.class)).isEqualTo(-0.0);
    assertThat(roundTrip(new Holder((short) 3), Holder.class)).isEqualTo(new Holder((short) 3));
    ZonedDateTime paris = ZonedDateTime.of(2026, 3, 29, 2, 30, 0, 0, ZoneId.of("Europe/Paris"));
    assertThat(roundTrip(paris, Object.class)).isEqualTo(paris);
    assertThat(roundTrip(new ArrayList<>(Arrays.asList(1L, null, "x")), typeOf("listOfWildcards")))
        .isEqualTo(Arrays.asList(1L, null, "x"));
    assertThat((Object[]) roundTrip(new Object[] {1L, new BigDecimal("1.10")}, typeOf("arrayOfObjects")))
        .containsExactly(1L, new BigDecimal("1.10"));
    assertThat(roundTrip(Optional.of(2L), typeOf("optionalObject"))).isEqualTo(Optional.of(2L));
    assertThat(roundTrip(new Amounts(new BigDecimal("2.50"), 9L), Amounts.class))
        .isEqualTo(new Amounts(new BigDecimal("2.50"), 9L));
  }

  /** What "the same class" means for the JDK's own collections: each comes back as exactly its class. */
  @Test
  void roundTrip_jdkCollections_comeBackAsTheirOwnClasses() {
    List<Object> made = new ArrayList<>(List.of(new ArrayList<>(List.of(1)), new LinkedList<>(List.of(1)),
        new java.util.HashSet<>(Set.of(1)), new java.util.LinkedHashSet<>(Set.of(1)), new TreeSet<>(Set.of("b", "a")),
        new HashMap<>(Map.of("a", 1)), new LinkedHashMap<>(Map.of("a", 1)), new TreeMap<>(Map.of("a", 1)),
        List.of(), List.of(1), List.of(1, 2), List.of(1, 2, 3), Stream.of(1).toList(), Stream.of(1, 2).toList(),
        Stream.of(1, null, 3).toList(), Set.of(), Set.of(1), Set.of(1, 2, 3), Map.of(), Map.of("a", 1),
        Map.of("a", 1, "b", 2), Collections.emptyList(), Collections.emptySet(), Collections.emptyMap(),
        Collections.singletonList(1), Collections.singleton(1), Collections.singletonMap("a", 1),
        Collections.unmodifiableList(new ArrayList<>(List.of(1))), Collections.unmodifiableList(new LinkedList<>()),
        Collections.unmodifiableSet(new java.util.HashSet<>(Set.of(1))),
        Collections.unmodifiableSortedSet(new TreeSet<>(Set.of(1))),
        Collections.unmodifiableNavigableSet(new TreeSet<>(Set.of(1))),
        Collections.unmodifiableMap(new HashMap<>(Map.of("a", 1))),
        Collections.unmodifiableSortedMap(new TreeMap<>(Map.of("a", 1))),
        Collections.unmodifiableNavigableMap(new TreeMap<>(Map.of("a", 1))), Arrays.asList(1, null)));
    for (Object value : made) {
      Object back = roundTrip(value, Object.class);
      assertThat(back).as(value.getClass().getName()).isEqualTo(value);
      assertThat(back.getClass()).as(value.getClass().getName()).isSameAs(value.getClass());
    }
  }

  @Test
  void encode_valuesOffTheClosedList_areRefusedNamingPathClassAndRemedy() throws Exception {
    assertThatThrownBy(() -> codec.encode(new Holder(new Line("a", 1)), Holder.class))
        .isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("at the result.payload, an open slot holds a " + Line.class.getName())
        .hasMessageContaining("declare a concrete type");
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("rows", new ArrayList<>(List.of(1L, Thread.State.NEW)));
    assertThatThrownBy(() -> codec.encode(nested, typeOf("mapOfObjects")))
        .hasMessageContaining("at the result[\"rows\"][1], an open slot holds a java.lang.Thread$State");
    for (Object refused : List.of(Optional.empty(), Optional.of(1L), new AtomicLong(1), new int[] {1},
        new Object[0], new Code("c"), new Label("l"), new Label(null), Collections.synchronizedList(new ArrayList<>()),
        new TreeSet<>(Comparator.reverseOrder()), new HashMap<>(Map.of(1, "a")), new java.util.Date(0))) {
      assertThatThrownBy(() -> codec.encode(new Holder(refused), Holder.class))
          .as(refused.getClass().getName())
          .isInstanceOf(IdempotencyResultException.class)
          .hasMessageContaining("at the result.payload, ");
    }
    assertThatThrownBy(() -> codec.encode(new HashMap<>(Map.of(1, "a")), typeOf("objectKeys")))
        .hasMessageContaining("a map key declared Object is a java.lang.Integer");
  }

  @Test
  void decode_storedDataOffTheClosedList_isRefused() throws Exception {
    for (String stored : List.of("[\"java.net.URL\",\"http://127.0.0.1:9/\"]", "[\"Gadget\",{\"command\":\"x\"}]",
        "{\"@class\":\"java.net.URL\"}", "[\"Long\"]", "[\"Long\",1,2]", "[5]", "5000000000",
        "[\"Set.of\",[1,null]]", "[\"singletonList\",[1,2]]", "[\"TreeSet\",[1,\"a\"]]")) {
      assertThatThrownBy(() -> codec.decode(stored, Object.class)).as(stored)
          .isInstanceOf(IdempotencyResultException.class)
          .hasMessageStartingWith("Cannot decode a stored result as java.lang.Object");
    }
    assertThatThrownBy(() -> codec.decode("{\"payload\":{\"id\":\"x\"}}", Holder.class))
        .isInstanceOf(IdempotencyResultException.class);
  }

  @Test
  void customizedCodec_keepsOpenSlotsAsTheyWere() throws Exception {
    ResultCodec custom = io.idempotent.runtime.JsonCodec.customized(b -> b.addModule(new com.fasterxml.jackson.databind.module.SimpleModule()));
    Map<String, Object> order = new LinkedHashMap<>(Map.of("total", new BigDecimal("19.990"), "n", 3L));
    Type type = typeOf("mapOfObjects");
    assertThat(custom.decode(custom.encode(order, type), type)).isEqualTo(order);
    assertThatThrownBy(() -> custom.encode(new Holder(new Line("a", 1)), Holder.class))
        .hasMessageContaining("declare a concrete type");
  }

  @Test
  void roundTrip_mapKeysWithLoneSurrogates_areKeptExactly() throws Exception {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("k\uDC00", 1L);
    map.put("\uD800", "\uDC00v");
    map.put("\uD83D\uDE00", "pair");
    String json = codec.encode(map, typeOf("mapOfObjects"));
    assertThat(json).isEqualTo(JsonText.escapeLoneSurrogates(json)).doesNotContain("\uD800").doesNotContain("k\uDC00");
    Map<?, ?> back = (Map<?, ?>) codec.decode(json, typeOf("mapOfObjects"));
    assertThat(back).isEqualTo(map);
    assertThat(new ArrayList<Object>(back.keySet())).containsExactlyElementsOf(map.keySet());
  }

  @Test
  void unescapeSurrogates_replacesOnlyEscapesOfSurrogates() {
    assertThat(JsonText.unescapeSurrogates("{\"a\":1}")).isEqualTo("{\"a\":1}");
    assertThat(JsonText.unescapeSurrogates("\"k\\uDC00\"")).isEqualTo("\"k\uDC00\"");
    assertThat(JsonText.unescapeSurrogates("\"\\ud83d\\ude00\"")).isEqualTo("\"\uD83D\uDE00\"");
    // an escaped backslash followed by text that spells an escape is text, not an escape
    assertThat(JsonText.unescapeSurrogates("\"\\\\uD800\\u0041\"")).isEqualTo("\"\\\\uD800\\u0041\"");
    assertThat(JsonText.unescapeSurrogates("\"\\uD80")).isEqualTo("\"\\uD80");
  }

  static final class Counter {
    @SuppressWarnings("unused")
    private final Object value = new ArrayList<>(List.of(1L));

    @Override
    public boolean equals(Object o) {
      return o instanceof Counter c && Objects.equals(c.value, value);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(value);
    }
  }

  @Test
  void roundTrip_privateFieldDeclaredObject_keepsItsValue() {
    assertThat(roundTrip(new Counter(), Counter.class)).isEqualTo(new Counter());
  }
}
