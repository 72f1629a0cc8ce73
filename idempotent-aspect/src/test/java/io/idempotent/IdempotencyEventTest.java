package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.internal.text.Hashing;
import org.junit.jupiter.api.Test;

/** An event made from the stored key gives the key's short reference, and never the key. */
class IdempotencyEventTest {

  @Test
  void ofStoredKey_givesTheKeysShortReference_everyTimeItIsAsked() {
    IdempotencyEvent event = IdempotencyEvent.ofStoredKey(IdempotencyEvent.Type.REPLAYED, "orders", "orders:o-1", null);

    assertThat(event.keyReference()).isEqualTo(Hashing.shortReference("orders:o-1")).hasSize(12);
    assertThat(event.keyReference()).isSameAs(event.keyReference());
    assertThat(event).hasToString("REPLAYED orders key#" + Hashing.shortReference("orders:o-1"));
    assertThat(event.toString()).doesNotContain("o-1");
  }

  @Test
  void ofStoredKey_withoutAKey_givesADash_asTheConstructorDoes() {
    IdempotencyEvent lazy = IdempotencyEvent.ofStoredKey(IdempotencyEvent.Type.KEY_MISSING, "orders", null, null);
    IdempotencyEvent given = new IdempotencyEvent(IdempotencyEvent.Type.KEY_MISSING, "orders", null, null);

    assertThat(lazy.keyReference()).isEqualTo("-").isEqualTo(given.keyReference());
    assertThat(lazy.error()).isEmpty();
  }
}
