package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
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

  @Test
  void compose_overTheLimit_keepsKeysDifferingOnlyInALoneSurrogateApart() {
    String stem = "k".repeat(300);
    List<String> endings = List.of("\uD800", "\uD801", "\uDC00", "\uDBFF\uD800", "?", "\uFFFD", "??");
    Set<String> hashed = new HashSet<>();
    for (String ending : endings) {
      assertThat(hashed.add(StoredKeys.compose("orders", null, stem + ending, 255)))
          .as("the key ending in U+%04X", (int) ending.charAt(0)).isTrue();
      assertThat(hashed.add(StoredKeys.compose("orders", stem + ending, "k", 255)))
          .as("the scope ending in U+%04X", (int) ending.charAt(0)).isTrue();
    }
  }

  @Test
  void compose_overTheLimit_wellFormedKeys_keepTheHashOfTheirUtf8() throws Exception {
    String key = "ключ-🔑-".repeat(40);
    String full = "6:orders-|" + key;
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(full.getBytes(StandardCharsets.UTF_8));
    assertThat(StoredKeys.compose("orders", null, key, 255))
        .isEqualTo("h:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
  }
}
