package io.idempotent.jdbi;

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
      // json() may throw IdempotencyResultException; the engine then releases the claim
      case VALUE -> new OutcomeColumns("VALUE", escapeLoneSurrogates(outcome.json()), null, null);
      case NULL -> new OutcomeColumns("NULL", null, null, null);
      case FAILURE -> new OutcomeColumns("FAILURE", null,
          storable(outcome.failureType(), MAX_TYPE_LENGTH), storable(outcome.failureMessage(), MAX_MESSAGE_LENGTH));
    };
  }

  /**
   * JSON text every database can hold. A lone UTF-16 surrogate is legal in a Java string but not in
   * UTF-8, so a driver would store it as '?'; it is written as its JSON escape instead, which reads back
   * as the same character. Outside strings JSON text is ASCII, and inside them a raw surrogate is never
   * part of an escape sequence, so this changes only how such characters are spelled.
   */
  static String escapeLoneSurrogates(String json) {
    StringBuilder sb = null;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      boolean lone = Character.isHighSurrogate(c)
          ? i + 1 >= json.length() || !Character.isLowSurrogate(json.charAt(i + 1))
          : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(json.charAt(i - 1)));
      if (lone && sb == null) {
        sb = new StringBuilder(json.length() + 12).append(json, 0, i);
      }
      if (sb != null) {
        if (lone) {
          sb.append(String.format("\\u%04X", (int) c));
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? json : sb.toString();
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
