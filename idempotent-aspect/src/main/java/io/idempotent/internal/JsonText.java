package io.idempotent.internal;

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

}
