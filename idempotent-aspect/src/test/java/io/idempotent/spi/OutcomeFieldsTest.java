package io.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyResultException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OutcomeFieldsTest {

  @Test
  void value_keepsItsJson_withLoneSurrogatesSpelledAsJsonEscapes() {
    OutcomeFields f = OutcomeFields.of(StoredOutcome.valueJson("{\"id\":\"a\uD800b\",\"k\":\"\uD83D\uDD11\"}"));
    assertThat(f).isEqualTo(new OutcomeFields("VALUE", "{\"id\":\"a\\uD800b\",\"k\":\"\uD83D\uDD11\"}", null, null));
    assertThat(f.toOutcome().kind()).isEqualTo(StoredOutcome.Kind.VALUE);
    assertThat(f.toOutcome().json()).isEqualTo(f.json());
  }

  @Test
  void value_keptByReference_isEncodedOnce_whenTheFieldsAreMade() {
    AtomicInteger encoded = new AtomicInteger();
    OutcomeFields f = OutcomeFields.of(StoredOutcome.value(42L, () -> {
      encoded.incrementAndGet();
      return "42";
    }));
    assertThat(f.json()).isEqualTo("42");
    assertThat(encoded).hasValue(1);
  }

  @Test
  void value_thatCannotBeEncoded_failsBeforeAnyFieldExists() {
    StoredOutcome unencodable = StoredOutcome.value("x", () -> {
      throw new IdempotencyResultException("cannot encode", null);
    });
    assertThatThrownBy(() -> OutcomeFields.of(unencodable)).isInstanceOf(IdempotencyResultException.class);
  }

  @Test
  void nullOutcome_hasOnlyItsKind() {
    OutcomeFields f = OutcomeFields.of(StoredOutcome.nullValue());
    assertThat(f).isEqualTo(new OutcomeFields("NULL", null, null, null));
    assertThat(f.toOutcome()).isSameAs(StoredOutcome.nullValue());
  }

  @Test
  void failure_keepsTypeMessageAndState_asTextEveryStoreCanHold() {
    String state = "{\"message\":\"declined \\u0000 \uDC00\"}";
    OutcomeFields f = OutcomeFields.of(StoredOutcome.failure("com.shop.CardDeclined", "declined \u0000 \uDC00 ключ", state));
    assertThat(f).isEqualTo(new OutcomeFields("FAILURE", "{\"message\":\"declined \\u0000 \\uDC00\"}",
        "com.shop.CardDeclined", "declined \uFFFD \uFFFD ключ"));
    StoredOutcome back = f.toOutcome();
    assertThat(back.kind()).isEqualTo(StoredOutcome.Kind.FAILURE);
    assertThat(back.failureType()).isEqualTo("com.shop.CardDeclined");
    assertThat(back.failureMessage()).isEqualTo("declined \uFFFD \uFFFD ключ");
    assertThat(back.json()).isEqualTo(f.json());
  }

  @Test
  void failure_withoutMessageOrState_hasNeither() {
    OutcomeFields f = OutcomeFields.of(StoredOutcome.failure("com.shop.Gone", null));
    assertThat(f).isEqualTo(new OutcomeFields("FAILURE", null, "com.shop.Gone", null));
    assertThat(f.toOutcome().failureMessage()).isNull();
    assertThat(f.toOutcome().json()).isNull();
  }

  @Test
  void failure_longTypeAndMessage_areCut_neverBetweenTheHalvesOfAPair() {
    String message = "m".repeat(OutcomeFields.MAX_MESSAGE_LENGTH - 1) + "\uD83D\uDD11" + "tail";
    String type = "t".repeat(OutcomeFields.MAX_TYPE_LENGTH + 10);
    OutcomeFields f = OutcomeFields.of(StoredOutcome.failure(type, message, null));
    assertThat(f.failureMessage()).isEqualTo("m".repeat(OutcomeFields.MAX_MESSAGE_LENGTH - 1));
    assertThat(f.failureType()).hasSize(OutcomeFields.MAX_TYPE_LENGTH);
    String exact = "m".repeat(OutcomeFields.MAX_MESSAGE_LENGTH);
    assertThat(OutcomeFields.of(StoredOutcome.failure("T", exact)).failureMessage()).isEqualTo(exact);
  }

  @Test
  void toOutcome_fieldsNoStoreWrote_areRefused() {
    assertThatThrownBy(() -> new OutcomeFields(null, "1", null, null).toOutcome())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind");
    assertThatThrownBy(() -> new OutcomeFields("MAYBE", "1", null, null).toOutcome())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAYBE");
    assertThatThrownBy(() -> new OutcomeFields("VALUE", null, null, null).toOutcome())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON");
    assertThatThrownBy(() -> new OutcomeFields("FAILURE", "{}", null, "m").toOutcome())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("type");
  }
}
