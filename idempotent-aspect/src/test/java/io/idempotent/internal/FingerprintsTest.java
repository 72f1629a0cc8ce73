package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class FingerprintsTest {

  record Line(String sku, int qty) {}

  public static class Bean {
    public String a = "x";
    public Map<String, Integer> m = new LinkedHashMap<>();
  }

  private static String fp(Object... values) {
    return Fingerprints.of(values);
  }

  @Test
  void of_isSha256InBase64Url() {
    assertThat(fp("a")).hasSize(43).matches("[A-Za-z0-9_-]+");
  }

  @Test
  void of_equalValues_equalFingerprints() {
    assertThat(fp("o-1", 100L, new Line("s", 2))).isEqualTo(fp("o-1", 100L, new Line("s", 2)));
  }

  @Test
  void of_mapAndSetOrder_doesNotMatter() {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("x", 1);
    a.put("y", List.of(1, 2));
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("y", List.of(1, 2));
    b.put("x", 1);
    assertThat(fp(a)).isEqualTo(fp(b)).isEqualTo(fp(new TreeMap<>(b))).isEqualTo(fp(new HashMap<>(a)));
    Set<String> s1 = new LinkedHashSet<>(List.of("a", "b", "c"));
    Set<String> s2 = new LinkedHashSet<>(List.of("c", "a", "b"));
    assertThat(fp(s1)).isEqualTo(fp(s2));
  }

  @Test
  void of_beanFieldAndNestedMapOrder_doesNotMatter() {
    Bean x = new Bean();
    x.m.put("k1", 1);
    x.m.put("k2", 2);
    Bean y = new Bean();
    y.m.put("k2", 2);
    y.m.put("k1", 1);
    assertThat(fp(x)).isEqualTo(fp(y));
    y.m.put("k1", 3);
    assertThat(fp(x)).isNotEqualTo(fp(y));
  }

  @Test
  void of_listOrder_matters() {
    assertThat(fp(List.of(1, 2))).isNotEqualTo(fp(List.of(2, 1)));
  }

  @Test
  void of_sensitiveToEveryArgumentAndKind() {
    String base = fp("o-1", 100L, "note");
    assertThat(fp("o-2", 100L, "note")).isNotEqualTo(base);
    assertThat(fp("o-1", 101L, "note")).isNotEqualTo(base);
    assertThat(fp("o-1", 100L, "note!")).isNotEqualTo(base);
    assertThat(fp("o-1", 100L)).isNotEqualTo(base);
    assertThat(fp(1)).isNotEqualTo(fp("1"));
    assertThat(fp((Object) null)).isNotEqualTo(fp("null")).isNotEqualTo(fp(""));
    assertThat(fp("ab", "c")).isNotEqualTo(fp("a", "bc"));
    assertThat(fp(List.of("a", "b"))).isNotEqualTo(fp(List.of("ab")));
    assertThat(fp(Optional.empty())).isNotEqualTo(fp((Object) null));
    assertThat(fp(true)).isNotEqualTo(fp(false));
    assertThat(fp(new Line("s", 1))).isNotEqualTo(fp(new Line("s", 2)));
  }

  @Test
  void of_numericValuesCompareByValue() {
    assertThat(fp(1)).isEqualTo(fp(1L));
    assertThat(fp(new BigDecimal("1.0"))).isEqualTo(fp(new BigDecimal("1.00")));
    assertThat(fp(new BigDecimal("1.0"))).isNotEqualTo(fp(new BigDecimal("1.01")));
  }

  @Test
  void of_javaTimeAndArrays() {
    assertThat(fp(LocalDate.of(2026, 12, 2))).isEqualTo(fp(LocalDate.parse("2026-12-02")));
    assertThat(fp((Object) new int[] {1, 2})).isEqualTo(fp(List.of(1, 2)));
    assertThat(fp((Object) new byte[] {1, 2})).isNotEqualTo(fp((Object) new byte[] {2, 1}));
  }

  @Test
  void of_largeValue_isHashedAndTheBufferIsNotPinned() {
    String big = "x".repeat(200_000);
    assertThat(fp(big)).isEqualTo(fp(big)).isNotEqualTo(fp(big + "y"));
  }

  /** Private state, no getters. */
  static final class Amount {
    private final int cents;

    Amount(int cents) {
      this.cents = cents;
    }
  }

  /** Equal fields, but a getter that changes on every read. */
  static class Sample {
    private final String sensor;

    Sample(String sensor) {
      this.sensor = sensor;
    }

    public String getSensor() {
      return sensor;
    }

    public long getTakenAt() {
      return System.nanoTime();
    }
  }

  static class Base {
    private final String code;
    static int instances;
    transient int cachedHash;

    Base(String code) {
      this.code = code;
      instances++;
    }
  }

  /** Declares a field with the same name as its superclass: both are part of its state. */
  static class Derived extends Base {
    private final String code;

    Derived(String baseCode, String code) {
      super(baseCode);
      this.code = code;
    }
  }

  static class Node {
    private final String name;
    private final List<Node> children = new ArrayList<>();
    private Node parent;

    Node(String name) {
      this.name = name;
    }
  }

  static class Holder {
    private final Object value;

    Holder(Object value) {
      this.value = value;
    }
  }

  private static FingerprintException refusal(Object... values) {
    return catchThrowableOfType(FingerprintException.class, () -> Fingerprints.of(values));
  }

  @Test
  void of_plainObject_isFingerprintedByItsPrivateFields() {
    assertThat(fp(new Amount(100))).isEqualTo(fp(new Amount(100))).isNotEqualTo(fp(new Amount(999)));
  }

  @Test
  void of_getterReadingAClock_doesNotChangeTheFingerprint() {
    assertThat(fp(new Sample("boiler"))).isEqualTo(fp(new Sample("boiler")))
        .isNotEqualTo(fp(new Sample("chiller")));
  }

  @Test
  void of_inheritedAndShadowedFieldsCount_staticAndTransientDoNot() {
    assertThat(fp(new Derived("a", "b"))).isNotEqualTo(fp(new Derived("b", "a")))
        .isEqualTo(fp(new Derived("a", "b")));
    Base one = new Base("x");
    Base other = new Base("x");
    other.cachedHash = 42;
    assertThat(fp(one)).isEqualTo(fp(other));
  }

  @Test
  void of_nullsDeepInTheGraph_areState() {
    Node a = new Node(null);
    a.children.add(new Node("leaf"));
    Node b = new Node(null);
    b.children.add(new Node(null));
    assertThat(fp(a)).isNotEqualTo(fp(b));
    b.children.set(0, new Node("leaf"));
    assertThat(fp(a)).isEqualTo(fp(b));
  }

  @Test
  void of_cycle_isRefusedWithThePathThatClosesIt() {
    Node root = new Node("root");
    Node child = new Node("child");
    root.children.add(child);
    child.parent = root;
    FingerprintException e = refusal("k", root);
    assertThat(e.argumentIndex()).isEqualTo(1);
    assertThat(e.path()).isEqualTo(".children[0].parent");
    assertThat(e.problem()).contains("cycle").contains("refers back to the argument itself");
  }

  @Test
  void of_sharedObjectsWithoutACycle_areFingerprinted() {
    Node shared = new Node("shared");
    Node root = new Node("root");
    root.children.add(shared);
    root.children.add(shared);
    root.parent = shared;
    assertThat(fp(root)).isEqualTo(fp(root));
  }

  @Test
  void of_valuesWithoutIdentity_areRefused() {
    Supplier<String> lambda = () -> "x";
    assertThat(refusal(lambda).problem()).contains("lambda");
    assertThat(refusal(new Object()).problem()).contains("java.lang.Object");
    assertThat(refusal(new Thread(() -> {})).problem()).contains("java.lang.Thread");
    assertThat(refusal(new ByteArrayInputStream(new byte[0])).problem()).contains("java.io.ByteArrayInputStream");
    FingerprintException nested = refusal(new Holder(List.of("a", lambda)));
    assertThat(nested.path()).isEqualTo(".value[1]");
    assertThat(refusal(Optional.of(Map.entry("k", new Holder(new Object())))).path())
        .isEqualTo(".get().getValue().value");
  }

  @Test
  void of_mapEntries_areKeyValuePairs() {
    assertThat(fp(Map.entry("a", 1))).isEqualTo(fp(new java.util.AbstractMap.SimpleEntry<>("a", 1)))
        .isNotEqualTo(fp(Map.entry("a", 2))).isNotEqualTo(fp(List.of("a", 1)));
  }

  @Test
  void of_jdkTypeWithoutAValueRule_isRefusedClearly_notByAModuleAccessError() {
    FingerprintException e = refusal(new Holder(new Random(7)));
    assertThat(e.path()).isEqualTo(".value");
    assertThat(e.problem()).contains("java.util.Random");
  }

  @Test
  void declaredRefusal_concreteJdkTypesWithoutAValueRule_only() {
    assertThat(CanonicalEncoder.declaredRefusal(Random.class)).contains("java.util.Random");
    assertThat(CanonicalEncoder.declaredRefusal(java.util.regex.Pattern.class)).contains("java.util.regex.Pattern");
    // every type with a rule of its own, and every type that may hold a value, is left to the call
    Object[] values = {"s", 1, 1L, (short) 1, (byte) 1, 1.0, 1f, true, 'c', new StringBuilder("b"),
        BigDecimal.ONE, java.math.BigInteger.ONE, java.util.UUID.randomUUID(), LocalDate.EPOCH,
        java.time.Instant.EPOCH, java.time.Duration.ZERO, java.time.Period.ZERO, java.time.ZoneOffset.UTC,
        java.net.URI.create("urn:x"), java.nio.file.Path.of("x"), new java.io.File("x"),
        java.util.Currency.getInstance("EUR"), java.util.Locale.ROOT, new java.util.Date(0),
        new java.sql.Timestamp(0), String.class, Optional.empty(), new HashMap<>(), new ArrayList<>(),
        new LinkedHashSet<>(), new java.util.concurrent.atomic.AtomicLong(), Map.entry("k", "v"),
        java.time.DayOfWeek.MONDAY, new Line("s", 1), new int[0]};
    for (Object v : values) {
      assertThat(CanonicalEncoder.declaredRefusal(v.getClass())).as(v.getClass().getName()).isNull();
      assertThat(fp(v)).as(v.getClass().getName()).hasSize(43);
    }
    assertThat(CanonicalEncoder.declaredRefusal(Object.class)).isNull();
    assertThat(CanonicalEncoder.declaredRefusal(Number.class)).isNull();
    assertThat(CanonicalEncoder.declaredRefusal(Amount.class)).isNull();
  }

  @Test
  void of_graphDeeperThanTheLimit_isRefusedWithoutOverflowingTheStack() {
    Node head = new Node("0");
    Node n = head;
    for (int i = 1; i < 5_000; i++) {
      Node next = new Node(String.valueOf(i));
      n.parent = next;
      n = next;
    }
    assertThat(refusal(head).problem()).contains("deep");
  }
}
