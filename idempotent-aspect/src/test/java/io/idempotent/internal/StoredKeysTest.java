package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.StoreKeyRules;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StoredKeysTest {

  private static final StoreKeyRules ANY = StoreKeyRules.any();
  private static final StoreKeyRules SHORT = StoreKeyRules.any().maxChars(255);
  /** The rules of the SQL table store. */
  private static final StoreKeyRules TABLE = StoreKeyRules.any().maxChars(255).withoutNul().withoutLoneSurrogates();

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
    for (StoreKeyRules rules : List.of(ANY, TABLE)) {
      Set<String> seen = new HashSet<>();
      for (String[] t : triples) {
        assertThat(seen.add(StoredKeys.compose(t[0], t[1], t[2], rules))).as(String.join(",", List.of(
            String.valueOf(t[0]), String.valueOf(t[1]), t[2]))).isTrue();
      }
    }
  }

  @Test
  void compose_overTheLimit_isHashedDeterministically() {
    String k = "k".repeat(300);
    String hashed = StoredKeys.compose("orders", null, k, SHORT);
    assertThat(hashed).startsWith("h:").hasSize(45).isEqualTo(StoredKeys.compose("orders", null, k, SHORT));
    assertThat(StoredKeys.compose("orders", null, k + "x", SHORT)).isNotEqualTo(hashed);
    assertThat(StoredKeys.compose("orders", null, "short", SHORT)).isEqualTo("6:orders-|short");
  }

  @Test
  void compose_atTheLimit_isKeptAsItIs_andOneCharacterMoreIsHashed() {
    String stem = "6:orders-|";
    String fits = "k".repeat(255 - stem.length());
    assertThat(StoredKeys.compose("orders", null, fits, SHORT)).isEqualTo(stem + fits).hasSize(255);
    assertThat(StoredKeys.compose("orders", null, fits + "k", SHORT)).startsWith("h:");
  }

  @Test
  void compose_overTheUtf8ByteLimit_isHashed_evenWithinTheCharacterLimit() {
    StoreKeyRules bytes = StoreKeyRules.any().maxChars(255).maxUtf8Bytes(100);
    String key = "ключ".repeat(20); // 80 characters, 160 bytes
    assertThat(StoredKeys.compose("orders", null, key, SHORT)).isEqualTo("6:orders-|" + key);
    assertThat(StoredKeys.compose("orders", null, key, bytes)).startsWith("h:").hasSize(45);
    assertThat(StoredKeys.compose("orders", null, "ключ".repeat(5), bytes)).isEqualTo("6:orders-|" + "ключ".repeat(5));
  }

  @Test
  void compose_overTheLimit_keepsKeysDifferingOnlyInALoneSurrogateApart() {
    String stem = "k".repeat(300);
    List<String> endings = List.of("\uD800", "\uD801", "\uDC00", "\uDBFF\uD800", "?", "\uFFFD", "??");
    for (StoreKeyRules rules : List.of(SHORT, TABLE)) {
      Set<String> hashed = new HashSet<>();
      for (String ending : endings) {
        assertThat(hashed.add(StoredKeys.compose("orders", null, stem + ending, rules)))
            .as("the key ending in U+%04X", (int) ending.charAt(0)).isTrue();
        assertThat(hashed.add(StoredKeys.compose("orders", stem + ending, "k", rules)))
            .as("the scope ending in U+%04X", (int) ending.charAt(0)).isTrue();
      }
    }
  }

  @Test
  void compose_overTheLimit_wellFormedKeys_keepTheHashOfTheirUtf8() throws Exception {
    String key = "ключ-🔑-".repeat(40);
    String full = "6:orders-|" + key;
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(full.getBytes(StandardCharsets.UTF_8));
    String expected = "h:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    assertThat(StoredKeys.compose("orders", null, key, SHORT)).isEqualTo(expected);
    assertThat(StoredKeys.compose("orders", null, key, TABLE)).as("the same hash on every store").isEqualTo(expected);
  }

  @Test
  void compose_forAStoreThatTakesAnyCharacter_keepsThemAsTheyAre() {
    assertThat(StoredKeys.compose("n", null, "a\\b\u0000c\uD800", ANY)).isEqualTo("1:n-|a\\b\u0000c\uD800");
  }

  @Test
  void compose_forAStoreThatCannotHoldThem_escapesBackslashNulAndLoneSurrogates() {
    assertThat(StoredKeys.compose("n", null, "o'neil 🔑", TABLE)).isEqualTo("1:n-|o'neil 🔑");
    assertThat(StoredKeys.compose("n", null, "a\\b", TABLE)).isEqualTo("1:n-|a\\\\b");
    assertThat(StoredKeys.compose("n", null, "a\u0000b", TABLE)).isEqualTo("1:n-|a\\0b");
    assertThat(StoredKeys.compose("n", null, "a\uD800b", TABLE)).isEqualTo("1:n-|a\\uD800b");
    assertThat(StoredKeys.compose("n", null, "\uDC00", TABLE)).isEqualTo("1:n-|\\uDC00");
    assertThat(StoredKeys.compose("n", "t\u0000", "\uD83D\uDD11\\", TABLE)).isEqualTo("1:n2:t\\0|\uD83D\uDD11\\\\");
    // only what the store cannot hold is escaped, and the backslash, so that escapes stay apart from text
    StoreKeyRules noNul = StoreKeyRules.any().withoutNul();
    assertThat(StoredKeys.compose("n", null, "\\\u0000\uD800", noNul)).isEqualTo("1:n-|\\\\\\0\uD800");
  }

  @Test
  void compose_forAStoreThatCannotHoldThem_isInjectiveOnTrickyKeys() {
    List<String> keys = List.of("", "\\", "\\\\", "\\0", "\u0000", "\\\u0000", "\u0000\\", "\\uD800", "\uD800",
        "\\u0000", "h:", "\\#", "x".repeat(245), "x".repeat(246), "x".repeat(244) + "\u0000",
        "x".repeat(244) + "\\0", "\u0000".repeat(200), "\\".repeat(200), "\\0".repeat(100));
    Set<String> composed = new HashSet<>();
    for (String k : keys) {
      String c = StoredKeys.compose("n", null, k, TABLE);
      assertThat(TABLE.accepts(c)).as("the table store takes the key for %s", k).isTrue();
      assertThat(composed.add(c)).as("distinct stored key for %s", k).isTrue();
    }
  }

  @Test
  void compose_keyThatEscapesPastTheLimit_isHashed() {
    String key = "\u0000".repeat(200); // 200 characters, 400 escaped
    assertThat(StoredKeys.compose("n", null, key, TABLE)).startsWith("h:").hasSize(45);
    assertThat(StoredKeys.compose("n", null, key, SHORT)).hasSize(205);
  }
}
