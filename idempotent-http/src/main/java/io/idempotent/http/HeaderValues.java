package io.idempotent.http;

/** Header values as they may go on the wire. Utility class. */
final class HeaderValues {

  private HeaderValues() {}

  /**
   * {@code value} with every control character but the tab (CR and LF above all) replaced by a space, so a
   * recorded value can never split into two header lines on replay.
   */
  static String sanitized(String value) {
    StringBuilder sb = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        if (sb == null) {
          sb = new StringBuilder(value);
        }
        sb.setCharAt(i, ' ');
      }
    }
    return sb == null ? value : sb.toString();
  }
}
