package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StoredKeyEncodingTest {

  @Test
  void encode_plainKeys_areUnchanged() {
    assertThat(StoredKeyEncoding.encode("12:orders.create-|o'neil 🔑")).isEqualTo("12:orders.create-|o'neil 🔑");
  }

  @Test
  void encode_escapesBackslashNulAndLoneSurrogates() {
    assertThat(StoredKeyEncoding.encode("a\\b")).isEqualTo("a\\\\b");
    assertThat(StoredKeyEncoding.encode("a\u0000b")).isEqualTo("a\\0b");
    assertThat(StoredKeyEncoding.encode("a\uD800b")).isEqualTo("a\\uD800b");
    assertThat(StoredKeyEncoding.encode("\uDC00")).isEqualTo("\\uDC00");
    assertThat(StoredKeyEncoding.encode("\uD83D\uDD11\\")).isEqualTo("\uD83D\uDD11\\\\");
  }

  @Test
  void encode_isInjectiveOnTrickyKeys() {
    List<String> keys = List.of("", "\\", "\\\\", "\\0", "\u0000", "\\\u0000", "\u0000\\", "\\uD800", "\uD800",
        "\\#", "\\#" + "0".repeat(64), "x".repeat(255), "x".repeat(256), "x".repeat(254) + "\u0000",
        "x".repeat(254) + "\\0");
    Set<String> encoded = new HashSet<>();
    for (String k : keys) {
      assertThat(encoded.add(StoredKeyEncoding.encode(k))).as("distinct encoding of %s", k).isTrue();
    }
  }

  @Test
  void encode_longKeys_areHashedToFitTheColumn_withAPrefixNoEscapedKeyHas() {
    String longKey = "k".repeat(10_000);
    String hashed = StoredKeyEncoding.encode(longKey);
    assertThat(hashed).startsWith("\\#").hasSize(66).isEqualTo(StoredKeyEncoding.encode(longKey));
    assertThat(StoredKeyEncoding.encode("k".repeat(9_999) + "K")).isNotEqualTo(hashed);
    // a key that escapes past the column is hashed too
    assertThat(StoredKeyEncoding.encode("\u0000".repeat(200))).startsWith("\\#").hasSize(66);
    assertThat(StoredKeyEncoding.encode("x".repeat(StoredKeyEncoding.COLUMN_LENGTH))).hasSize(255);
  }

  @Test
  void encode_keysHashedAfterEscaping_keepLoneSurrogatesApart() {
    String stem = "\u0000".repeat(200);
    Set<String> encoded = new HashSet<>();
    for (String ending : List.of("\uD800", "\uD801", "\uDC00", "\uFFFD", "?")) {
      String e = StoredKeyEncoding.encode(stem + ending);
      assertThat(e).startsWith("\\#");
      assertThat(encoded.add(e)).as("the key ending in U+%04X", (int) ending.charAt(0)).isTrue();
    }
  }

  @Test
  void encode_hashedWellFormedKey_keepsTheHashOfItsUtf16() throws Exception {
    String key = "\u0000ключ-🔑".repeat(40);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_16BE));
    assertThat(StoredKeyEncoding.encode(key)).isEqualTo("\\#" + HexFormat.of().formatHex(digest));
  }
}
