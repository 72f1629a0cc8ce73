package io.idempotent.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A request path as sent (still percent-encoded) read by the rules of the Servlet 6 specification, section
 * 3.5.2 "URI Path Canonicalization": path parameters removed, percent escapes decoded as UTF-8, empty
 * segments other than the last removed, dot segments resolved. Where those rules say a request must be
 * refused because different readers may take it for different paths (an encoded {@code /} or dot segment,
 * a backslash, a control character, ...), the result names that sequence instead. Stateless.
 */
final class CanonicalPath {

  /** The canonical path, or the suspicious sequence that stops it. */
  sealed interface Read permits Canonical, Suspicious {}

  record Canonical(String path) implements Read {}

  /** {@code sequence} says, for a person, what was found: "an encoded '/'". */
  record Suspicious(String sequence) implements Read {}

  private CanonicalPath() {}

  /** Reads {@code raw}, a path as sent; the empty path (a root context's path) stays empty. */
  static Read of(String raw) {
    if (raw.isEmpty()) {
      return new Canonical("");
    }
    if (!raw.startsWith("/")) {
      return new Suspicious("a path that does not start with '/'");
    }
    if (raw.indexOf('#') >= 0) {
      return new Suspicious("a fragment");
    }
    String[] rawSegments = raw.substring(1).split("/", -1);
    List<String> segments = new ArrayList<>(rawSegments.length);
    for (int i = 0; i < rawSegments.length; i++) {
      String rawSegment = rawSegments[i];
      int semicolon = rawSegment.indexOf(';');
      String rawName = semicolon < 0 ? rawSegment : rawSegment.substring(0, semicolon);
      byte[] bytes = percentDecoded(rawSegment); // the parameters too: an encoded '/' there is refused as well
      if (bytes == null) {
        return new Suspicious("a '%' not followed by two hexadecimal digits");
      }
      String unsafe = unsafeByte(bytes);
      if (unsafe != null) {
        return new Suspicious(unsafe);
      }
      byte[] decoded = percentDecoded(rawName);
      String name = decoded == null ? null : utf8(decoded);
      if (name == null) {
        return new Suspicious("percent escapes that are not UTF-8");
      }
      for (int c = 0; c < name.length(); c++) {
        if (Character.getType(name.charAt(c)) == Character.CONTROL) {
          return new Suspicious("a control character");
        }
      }
      boolean dots = name.equals(".") || name.equals("..");
      if (dots && semicolon >= 0) {
        return new Suspicious("a dot segment with a parameter");
      }
      if (dots && !rawName.equals(name)) {
        return new Suspicious("an encoded dot segment");
      }
      boolean last = i == rawSegments.length - 1;
      if (name.isEmpty() && semicolon >= 0 && !last) {
        return new Suspicious("an empty segment with a parameter");
      }
      if (!name.isEmpty() || last) {
        segments.add(name);
      }
    }
    return resolveDots(segments);
  }

  /** Removes {@code .} segments, and each {@code ..} with the segment before it. */
  private static Read resolveDots(List<String> segments) {
    List<String> kept = new ArrayList<>(segments.size());
    for (String s : segments) {
      if (s.equals("..")) {
        if (kept.isEmpty()) {
          return new Suspicious("a '..' segment above the root");
        }
        kept.remove(kept.size() - 1);
      } else if (!s.equals(".")) {
        kept.add(s);
      }
    }
    StringBuilder path = new StringBuilder();
    for (String s : kept) {
      path.append('/').append(s);
    }
    return new Canonical(path.length() == 0 ? "/" : path.toString());
  }

  /** The bytes {@code text} stands for (characters beyond ASCII as UTF-8), or null for a broken escape. */
  private static byte @Nullable [] percentDecoded(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
        int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
        if (low < 0) {
          return null;
        }
        out.write(high << 4 | low);
        i += 2;
      } else if (c < 0x80) {
        out.write(c);
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toByteArray();
  }

  private static @Nullable String unsafeByte(byte[] bytes) {
    for (byte b : bytes) {
      if (b == '/') {
        return "an encoded '/'";
      }
      if (b == '\\') {
        return "a backslash";
      }
      if ((b >= 0 && b < 0x20) || b == 0x7F) {
        return "a control character";
      }
    }
    return null;
  }

  private static @Nullable String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
