package io.idempotent.jdbi;

import io.idempotent.internal.JsonText;
import io.idempotent.spi.StoredOutcome;

/**
 * The column values of a completed outcome, computed before anything is written: encoding a value may
 * fail, and then nothing must have been touched.
 */
record OutcomeColumns(String kind, String resultJson, String failureType, String failureMessage) {

  /** Longest failure message kept; longer ones are cut (they are for humans, and rows should stay small). */
  static final int MAX_MESSAGE_LENGTH = 4000;
  static final int MAX_TYPE_LENGTH = 1000;

  static OutcomeColumns of(StoredOutcome outcome) {
    return switch (outcome.kind()) {
      // json() may throw IdempotencyResultException; the engine then releases the claim. The default
      // codec already escapes lone surrogates; a custom one may not.
      case VALUE -> new OutcomeColumns("VALUE", JsonText.escapeLoneSurrogates(outcome.json()), null, null);
      case NULL -> new OutcomeColumns("NULL", null, null, null);
      // a failure's recorded state (its fields, full message, cause description) is JSON too: same column
      case FAILURE -> new OutcomeColumns("FAILURE",
          outcome.json() == null ? null : JsonText.escapeLoneSurrogates(outcome.json()),
          storable(outcome.failureType(), MAX_TYPE_LENGTH), storable(outcome.failureMessage(), MAX_MESSAGE_LENGTH));
    };
  }

  /** Text every dialect can hold: no U+0000 (PostgreSQL rejects it), bounded length. */
  private static String storable(String s, int max) {
    if (s == null) {
      return null;
    }
    String t = s.indexOf('\u0000') >= 0 ? s.replace('\u0000', '\uFFFD') : s;
    if (t.length() > max) {
      int end = Character.isHighSurrogate(t.charAt(max - 1)) ? max - 1 : max;
      t = t.substring(0, end);
    }
    return t;
  }
}
