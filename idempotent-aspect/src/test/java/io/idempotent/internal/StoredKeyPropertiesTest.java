package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.StoreKeyRules;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Composed keys under every kind of store rules: two different (name, scope, key) triples never give the
 * same stored key, and every stored key obeys the rules it was composed for.
 */
class StoredKeyPropertiesTest {

  @Provide
  Arbitrary<String> text() {
    // short strings from an alphabet full of what escaping and length prefixes must tell apart
    return Arbitraries.strings().withChars('a', '1', ':', '|', '-', '\\', '0', 'u', 'h', '\u0000', '\uD800',
        '\uDC00', '\uD83D', '\uDE00', 'ж', '?', '\uFFFD').ofMaxLength(12);
  }

  @Provide
  Arbitrary<String> scope() {
    return text().injectNull(0.3);
  }

  @Provide
  Arbitrary<StoreKeyRules> rules() {
    return Arbitraries.of(
        StoreKeyRules.any(),
        StoreKeyRules.any().maxChars(64),
        StoreKeyRules.any().maxUtf8Bytes(64),
        StoreKeyRules.any().withoutNul(),
        StoreKeyRules.any().withoutLoneSurrogates(),
        StoreKeyRules.any().maxChars(64).withoutNul().withoutLoneSurrogates());
  }

  @Property(tries = 3000)
  void distinctTriples_giveDistinctStoredKeys(
      @ForAll("text") String name1, @ForAll("scope") String scope1, @ForAll("text") String key1,
      @ForAll("text") String name2, @ForAll("scope") String scope2, @ForAll("text") String key2,
      @ForAll("rules") StoreKeyRules rules) {
    String a = StoredKeys.compose(name1, scope1, key1 + key1 + key1, rules);
    String b = StoredKeys.compose(name2, scope2, key2 + key2 + key2, rules);
    boolean sameTriple = name1.equals(name2) && java.util.Objects.equals(scope1, scope2) && key1.equals(key2);
    assertThat(a.equals(b)).as("%s and %s", a, b).isEqualTo(sameTriple);
  }

  /**
   * A key that spells out, as plain text, the escape of a character another key holds (a backslash and
   * {@code 0} for U+0000; a backslash, {@code u} and four hex digits for a lone surrogate) never gets that
   * key's stored key.
   */
  @Property(tries = 2000)
  void keysSpellingAnEscape_neverMeetTheKeyWithTheCharacter(
      @ForAll("text") String name, @ForAll("text") String key, @ForAll("rules") StoreKeyRules rules) {
    StringBuilder spelled = new StringBuilder();
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1));
      if (c == '\u0000') {
        spelled.append("\\0");
      } else if (Character.isSurrogate(c) && !pair) {
        spelled.append(String.format("\\u%04X", (int) c));
      } else {
        spelled.append(c);
        if (pair) {
          spelled.append(key.charAt(++i));
        }
      }
    }
    if (!spelled.toString().equals(key)) {
      assertThat(StoredKeys.compose(name, null, spelled.toString(), rules))
          .isNotEqualTo(StoredKeys.compose(name, null, key, rules));
    }
  }

  @Property(tries = 2000)
  void storedKeys_obeyTheRulesTheyWereComposedFor(
      @ForAll("text") String name, @ForAll("scope") String scope, @ForAll("text") String key,
      @ForAll("rules") StoreKeyRules rules) {
    String stored = StoredKeys.compose(name, scope, key.repeat(8), rules);
    assertThat(rules.accepts(stored)).as(stored).isTrue();
  }
}
