package io.idempotent.reliability;

import java.util.ArrayList;
import java.util.List;

/** Key values that could break a store or be confused with one another. */
final class HostileKeys {

  private HostileKeys() {}

  static List<String> all() {
    List<String> keys = new ArrayList<>(List.of(
        // case, spacing and line ends that collations or trimming could merge
        "plain", "PLAIN", "Plain", "plain ", " plain", "plain  ", "plain\t", "plain\n", "plain\r\n",
        // control characters
        "\u0000", "a\u0000b", "a\u0000c", "\u0001\u0002\u001f\u007f", "\u0085\u2028\u2029", "\u001b[31mred",
        // unicode that normalization or case folding could merge
        "é", "e\u0301", "ß", "ss", "İ", "i", "ı", "ﬁ", "fi", "Ａ", "A", "a",
        // beyond the BMP, lone surrogates, bidi and invisible characters
        "😀", "\uD83D", "\uDE00", "\uD83D\uDE00x", "𝒳", "中文键", "עברית", "\u202Eevil", "\uFEFFbom", "\u200B", "",
        // quotes, escapes, wildcards
        "o'neil", "o''neil", "\"quoted\"", "`tick`", "\\", "\\\\", "\\0", "\\u0000", "\\#abc", "%", "_", "%_%", "*",
        // SQL fragments
        "'; DROP TABLE rel_idempotency; --", "' OR '1'='1", "1; SELECT pg_sleep(10)", "$$; $$", "\\'; --",
        "x' UNION SELECT owner_token FROM rel_idempotency --", "/* comment */", "-- comment",
        // look-alikes of the stored key's own framing and of hashed keys
        "a|b", "1:a-|b", "h:abc", "null", "NULL", "undefined", "{\"json\":true}", "<xml/>"));
    keys.remove(""); // blank keys are refused by design (tested separately)
    String big = "x".repeat(100 * 1024);
    keys.add(big);
    keys.add(big + "y");
    keys.add("y" + big);
    keys.add(big.substring(1) + "\u0000");
    keys.add("é".repeat(50 * 1024)); // 100 kB in UTF-8
    return keys;
  }
}
