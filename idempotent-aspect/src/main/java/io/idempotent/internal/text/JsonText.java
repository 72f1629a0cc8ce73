package io.idempotent.internal.text;

/** Spelling of JSON text so that every store keeps it exactly. */
public final class JsonText {

  private JsonText() {}

  /**
   * JSON text every database can hold. A lone UTF-16 surrogate is legal in a Java string but not in
   * UTF-8, so a driver would store it as '?'; it is written as its JSON escape instead, which reads back
   * as the same character. Outside strings JSON text is ASCII, and inside them a raw surrogate is never
   * part of an escape sequence, so this changes only how such characters are spelled.
   */
  public static String escapeLoneSurrogates(String json) {
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

  /**
   * {@code json} with every escaped surrogate (a backslash, {@code u} and D800 to DFFF) written as the
   * character itself: the same JSON text for a reader of Java strings. Jackson refuses an escaped lone surrogate in
   * a field name (it reads one in a value), which is how {@link #escapeLoneSurrogates} spells a map key
   * holding one; given the character itself it reads the name as it was. Returns {@code json} itself when
   * it has no such escape.
   */
  public static String unescapeSurrogates(String json) {
    StringBuilder sb = null;
    int copied = 0;
    for (int i = json.indexOf('\\'); i >= 0 && i + 1 < json.length(); i = json.indexOf('\\', i + 2)) {
      int code = json.charAt(i + 1) == 'u' && i + 6 <= json.length() ? hex(json, i + 2) : -1;
      if (code >= Character.MIN_SURROGATE && code <= Character.MAX_SURROGATE) {
        if (sb == null) {
          sb = new StringBuilder(json.length());
        }
        sb.append(json, copied, i).append((char) code);
        copied = i + 6;
        i += 4; // with the loop's 2, past the escape
      }
    }
    return sb == null ? json : sb.append(json, copied, json.length()).toString();
  }

  /** The four hex digits at {@code at} as a number, or -1. */
  private static int hex(String s, int at) {
    int value = 0;
    for (int i = at; i < at + 4; i++) {
      int digit = Character.digit(s.charAt(i), 16);
      if (digit < 0) {
        return -1;
      }
      value = value * 16 + digit;
    }
    return value;
  }
}
