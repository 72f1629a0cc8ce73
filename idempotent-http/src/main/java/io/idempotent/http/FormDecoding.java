package io.idempotent.http;

import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Decodes {@code a=1&b=2} (a query string or a urlencoded form body). Utility class. */
final class FormDecoding {

  private FormDecoding() {}

  /** Adds the pairs of {@code text}, percent-decoded as {@code charset}, to {@code into}; a bad escape keeps the raw text. */
  static void decode(String text, Charset charset, Map<String, List<String>> into) {
    for (String pair : text.split("&", -1)) { // empty pairs, trailing ones too, are skipped
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      into.computeIfAbsent(decoded(name, charset), k -> new ArrayList<>()).add(decoded(value, charset));
    }
  }

  private static String decoded(String text, Charset charset) {
    try {
      // bytes above 0x7F arrive as ISO-8859-1 characters; re-read them in the form's charset
      String raw = new String(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), charset);
      return URLDecoder.decode(raw, charset);
    } catch (IllegalArgumentException e) {
      return text;
    }
  }
}
