package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
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
}
