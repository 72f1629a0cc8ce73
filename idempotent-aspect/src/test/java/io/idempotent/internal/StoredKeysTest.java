package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StoredKeysTest {

  @Test
  void compose_distinctTriples_neverCollide() {
    List<String[]> triples = List.of(
        new String[] {"a", null, "b"},
        new String[] {"a", "", "b"},
        new String[] {"a|-", null, "x"},
        new String[] {"a", null, "-|x"},
        new String[] {"a", "b", "c"},
        new String[] {"a", "b|c", ""},
        new String[] {"a", null, "1:b|c"},
        new String[] {"a1", null, "b"},
        new String[] {"a", "1", "b"});
    Set<String> seen = new HashSet<>();
    for (String[] t : triples) {
      assertThat(seen.add(StoredKeys.compose(t[0], t[1], t[2], Integer.MAX_VALUE))).as(String.join(",", List.of(
          String.valueOf(t[0]), String.valueOf(t[1]), t[2]))).isTrue();
    }
  }

  @Test
  void compose_overTheLimit_isHashedDeterministically() {
    String k = "k".repeat(300);
    String hashed = StoredKeys.compose("orders", null, k, 255);
    assertThat(hashed).startsWith("h:").hasSize(45).isEqualTo(StoredKeys.compose("orders", null, k, 255));
    assertThat(StoredKeys.compose("orders", null, k + "x", 255)).isNotEqualTo(hashed);
    assertThat(StoredKeys.compose("orders", null, "short", 255)).isEqualTo("6:orders-|short");
  }
}
