package io.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StoreKeyRulesTest {

  private static final StoreKeyRules TABLE = StoreKeyRules.any().maxChars(255).withoutNul().withoutLoneSurrogates();

  @Test
  void any_acceptsEveryKey() {
    StoreKeyRules any = StoreKeyRules.any();
    assertThat(any.accepts("x".repeat(100_000) + "\u0000\uD800\uDC00\uDC00")).isTrue();
    assertThat(any.maxChars()).isEqualTo(Integer.MAX_VALUE);
    assertThat(any.maxUtf8Bytes()).isEqualTo(Integer.MAX_VALUE);
    assertThat(any.allowsNul()).isTrue();
    assertThat(any.allowsLoneSurrogates()).isTrue();
  }

  @Test
  void accepts_checksLengthInCharacters() {
    assertThat(TABLE.accepts("x".repeat(255))).isTrue();
    assertThat(TABLE.accepts("x".repeat(256))).isFalse();
    assertThat(TABLE.accepts("🔑".repeat(127) + "x")).as("a pair is two characters").isTrue();
    assertThat(TABLE.accepts("🔑".repeat(128))).isFalse();
  }

  @Test
  void accepts_countsUtf8BytesWithALoneSurrogateAsThree() {
    StoreKeyRules bytes = StoreKeyRules.any().maxUtf8Bytes(64);
    assertThat(bytes.accepts("x".repeat(64))).isTrue();
    assertThat(bytes.accepts("x".repeat(65))).isFalse();
    assertThat(bytes.accepts("ж".repeat(32))).isTrue();
    assertThat(bytes.accepts("ж".repeat(32) + "x")).isFalse();
    assertThat(bytes.accepts("🔑".repeat(16))).isTrue();
    assertThat(bytes.accepts("🔑".repeat(16) + "x")).isFalse();
    assertThat(bytes.accepts("\uD800".repeat(21) + "x")).isTrue();
    assertThat(bytes.accepts("\uD800".repeat(21) + "xx")).isFalse();
  }

  @Test
  void accepts_refusesNulAndLoneSurrogatesOnlyWhenTheRulesSaySo() {
    for (String bad : new String[] {"a\u0000", "a\uD800", "\uDC00a", "\uDC00\uD800", "a\uD83D"}) {
      assertThat(TABLE.accepts(bad)).as(bad).isFalse();
    }
    assertThat(TABLE.accepts("a\uD83D\uDE00\\0")).isTrue();
    assertThat(StoreKeyRules.any().withoutNul().accepts("a\uD800")).isTrue();
    assertThat(StoreKeyRules.any().withoutNul().accepts("a\u0000")).isFalse();
    assertThat(StoreKeyRules.any().withoutLoneSurrogates().accepts("a\u0000")).isTrue();
    assertThat(StoreKeyRules.any().withoutLoneSurrogates().accepts("a\uDFFF")).isFalse();
  }

  @Test
  void requireAccepted_returnsTheKey_orSaysWhichRuleItBreaksWithoutShowingIt() {
    assertThat(TABLE.requireAccepted("6:orders-|o-1")).isEqualTo("6:orders-|o-1");
    assertThatThrownBy(() -> TABLE.requireAccepted("secret\u0000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds U+0000").hasMessageContaining("without U+0000")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> TABLE.requireAccepted("secret".repeat(50)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has 300 characters").hasMessageContaining("at most 255 characters")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> TABLE.requireAccepted("secret\uDC00"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");
  }

  @Test
  void strictest_keepsEveryLimitOfBoth() {
    StoreKeyRules near = StoreKeyRules.any().maxChars(1024).maxUtf8Bytes(2000);
    StoreKeyRules both = near.strictest(TABLE);
    assertThat(both).isEqualTo(StoreKeyRules.any().maxChars(255).maxUtf8Bytes(2000).withoutNul().withoutLoneSurrogates());
    assertThat(TABLE.strictest(near)).isEqualTo(both);
    assertThat(StoreKeyRules.any().strictest(StoreKeyRules.any())).isEqualTo(StoreKeyRules.any());
  }

  @Test
  void limits_belowTheLengthOfAHashedKey_areRefused() {
    assertThatThrownBy(() -> StoreKeyRules.any().maxChars(63)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxChars").hasMessageContaining("64");
    assertThatThrownBy(() -> StoreKeyRules.any().maxUtf8Bytes(10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxUtf8Bytes");
    assertThat(StoreKeyRules.any().maxChars(64).maxChars()).isEqualTo(64);
  }

  @Test
  void toString_namesEveryRule() {
    assertThat(TABLE).hasToString("[at most 255 characters, without U+0000, without lone surrogates]");
    assertThat(StoreKeyRules.any()).hasToString("[of any length and characters]");
  }
}
