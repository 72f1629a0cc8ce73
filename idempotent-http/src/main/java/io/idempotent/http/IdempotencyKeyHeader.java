package io.idempotent.http;

import java.util.List;
import java.util.Objects;

/**
 * Reads the {@code Idempotency-Key} request header as {@code draft-ietf-httpapi-idempotency-key-header}
 * defines it: an RFC 8941 Item whose value is an sf-string, {@code Idempotency-Key:
 * "8e03978e-40d5-43e8-bc93-6894a57f9324"}. Immutable, thread-safe.
 *
 * <p>Unless strict, a bare value is tolerated as well, since many clients send keys unquoted: visible
 * ASCII without spaces, quotes, backslashes, commas or semicolons ({@code Idempotency-Key: 8e03978e-...}),
 * and it means the same key as its quoted form. Parameters ({@code "k";p=1}) are refused rather than
 * ignored, so that two requests whose headers differ never share a key by accident. A request with the
 * header more than once is refused, as RFC 8941 combines the lines into a list, which is not an Item.
 */
public final class IdempotencyKeyHeader {

  /** The request header's name. */
  public static final String NAME = "Idempotency-Key";

  private final int maxLength;
  private final boolean strict;

  /**
   * @param maxLength the longest key accepted, in characters (the key itself, without quotes)
   * @param strict accept only the sf-string form, refusing bare values
   */
  public IdempotencyKeyHeader(int maxLength, boolean strict) {
    if (maxLength < 1) {
      throw new IllegalArgumentException("maxLength must be at least 1, was " + maxLength);
    }
    this.maxLength = maxLength;
    this.strict = strict;
  }

  /** What a request's header lines say: no key, a key, or why the header is malformed. */
  public sealed interface Parsed {
    /** The request carries no {@code Idempotency-Key} header. */
    record Absent() implements Parsed {}

    /** The key, unquoted and unescaped. */
    record Key(String value) implements Parsed {
      public Key {
        Objects.requireNonNull(value, "value");
      }
    }

    /** A header that is there but cannot be used; {@code problem} says why, for the client. */
    record Malformed(String problem) implements Parsed {}
  }

  /** Parses every line of the header a request carries (none, one, or several). */
  public Parsed parse(List<String> lines) {
    if (lines.isEmpty()) {
      return new Parsed.Absent();
    }
    if (lines.size() > 1) {
      return new Parsed.Malformed("The Idempotency-Key header appears " + lines.size()
          + " times; send it once");
    }
    return parse(lines.get(0));
  }

  /** Parses one header value. */
  public Parsed parse(String raw) {
    String value = trimSpaces(raw);
    if (value.isEmpty()) {
      return new Parsed.Malformed("The Idempotency-Key header is empty; send a key as a quoted string,"
          + " such as \"8e03978e-40d5-43e8-bc93-6894a57f9324\"");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        return new Parsed.Malformed("The Idempotency-Key header contains a character outside printable ASCII"
            + " at position " + (i + 1) + "; a key is a string of printable ASCII characters");
      }
    }
    return value.charAt(0) == '"' ? parseString(value) : parseBare(value);
  }

  private Parsed parseString(String value) {
    StringBuilder key = new StringBuilder(value.length());
    int i = 1;
    while (true) {
      if (i >= value.length()) {
        return new Parsed.Malformed("The Idempotency-Key header's string has no closing quote");
      }
      char c = value.charAt(i++);
      if (c == '\\') {
        if (i >= value.length()) {
          return new Parsed.Malformed("The Idempotency-Key header's string ends with a lone backslash");
        }
        char escaped = value.charAt(i++);
        if (escaped != '"' && escaped != '\\') {
          return new Parsed.Malformed("The Idempotency-Key header's string has the escape \\" + escaped
              + "; only \\\" and \\\\ are allowed");
        }
        key.append(escaped);
      } else if (c == '"') {
        break;
      } else {
        key.append(c);
      }
      if (key.length() > maxLength) {
        return tooLong();
      }
    }
    if (i < value.length()) {
      return value.charAt(i) == ';'
          ? new Parsed.Malformed("The Idempotency-Key header has parameters after the key; send the key alone")
          : new Parsed.Malformed("The Idempotency-Key header has text after the closing quote; send one"
              + " quoted string");
    }
    return checked(key.toString());
  }

  private Parsed parseBare(String value) {
    if (strict) {
      return new Parsed.Malformed("The Idempotency-Key header must be a quoted string (RFC 8941), such as"
          + " \"8e03978e-40d5-43e8-bc93-6894a57f9324\"");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ' ' || c == '"' || c == '\\' || c == ',' || c == ';') {
        return new Parsed.Malformed("The Idempotency-Key header's unquoted key contains '" + c + "' at position "
            + (i + 1) + "; send the key as a quoted string");
      }
    }
    if (value.length() > maxLength) {
      return tooLong();
    }
    return checked(value);
  }

  private Parsed checked(String key) {
    if (key.isEmpty()) {
      return new Parsed.Malformed("The Idempotency-Key header holds an empty string; send a non-empty key");
    }
    if (key.isBlank()) {
      return new Parsed.Malformed("The Idempotency-Key header holds only spaces; send a non-empty key");
    }
    return new Parsed.Key(key);
  }

  private Parsed tooLong() {
    return new Parsed.Malformed("The Idempotency-Key header's key is longer than " + maxLength + " characters");
  }

  /** RFC 8941 parsing discards leading and trailing spaces (SP only). */
  private static String trimSpaces(String raw) {
    int start = 0;
    int end = raw.length();
    while (start < end && raw.charAt(start) == ' ') {
      start++;
    }
    while (end > start && raw.charAt(end - 1) == ' ') {
      end--;
    }
    return raw.substring(start, end);
  }

  /** The header value that carries {@code key}: an sf-string, quotes and backslashes escaped. */
  public static String format(String key) {
    StringBuilder sb = new StringBuilder(key.length() + 2).append('"');
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        throw new IllegalArgumentException("An idempotency key is printable ASCII; this one has a character"
            + " outside it at position " + (i + 1));
      }
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"').toString();
  }
}
