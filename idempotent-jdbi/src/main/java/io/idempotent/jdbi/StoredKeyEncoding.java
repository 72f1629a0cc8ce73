package io.idempotent.jdbi;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps an engine key to the text kept in the key column, injectively, so that distinct keys never share
 * a row on any database. PostgreSQL text cannot hold U+0000 and no database can store a lone UTF-16
 * surrogate, so those are escaped: {@code \} becomes {@code \\}, U+0000 becomes {@code \0} and a lone
 * surrogate becomes {@code \}{@code uXXXX}. An escaped key longer than the column is replaced by
 * {@code \#} and the SHA-256 of its UTF-16 code units (the exact characters, lone surrogates included);
 * no escaped key starts with {@code \#}, so the two forms cannot collide.
 */
final class StoredKeyEncoding {

  /** Characters in the key column. */
  static final int COLUMN_LENGTH = 255;

  private static final String HASH_PREFIX = "\\#";

  private StoredKeyEncoding() {}

  static String encode(String key) {
    StringBuilder sb = null;
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      String escape = null;
      if (c == '\\') {
        escape = "\\\\";
      } else if (c == '\u0000') {
        escape = "\\0";
      } else if (Character.isHighSurrogate(c)) {
        if (i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
          if (sb != null) {
            sb.append(c).append(key.charAt(i + 1));
          }
          i++;
          continue;
        }
        escape = unicodeEscape(c);
      } else if (Character.isLowSurrogate(c)) {
        escape = unicodeEscape(c);
      }
      if (escape != null && sb == null) {
        sb = new StringBuilder(key.length() + 16).append(key, 0, i);
      }
      if (sb != null) {
        if (escape != null) {
          sb.append(escape);
        } else {
          sb.append(c);
        }
      }
    }
    String encoded = sb == null ? key : sb.toString();
    return encoded.length() <= COLUMN_LENGTH ? encoded : HASH_PREFIX + sha256(key);
  }

  private static String unicodeEscape(char c) {
    return String.format("\\u%04X", (int) c);
  }

  private static String sha256(String s) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      // the key's UTF-16 code units, big-endian, written out by hand: the UTF-16BE charset would replace
      // every lone surrogate with U+FFFD, and keys differing only there would share a row
      byte[] bytes = new byte[s.length() * 2];
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        bytes[2 * i] = (byte) (c >> 8);
        bytes[2 * i + 1] = (byte) c;
      }
      return HexFormat.of().formatHex(md.digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
