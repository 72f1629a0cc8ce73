package io.idempotent.http;

import java.util.Objects;

/**
 * A path pattern for routes: an exact path ({@code /orders}), {@code *} for one whole segment
 * ({@code /orders/*}/{@code refunds}) or a trailing {@code /**} for the path and everything below it
 * ({@code /api/**}; {@code /**} is every path). Compared, case-sensitively as servlet mappings are, against
 * the path the container mapped the request by: servlet path plus path info (the path within the context,
 * decoded and normalised, without path parameters or query). Immutable.
 */
public final class PathPattern {

  private final String pattern;
  private final String[] segments;
  private final boolean anyBelow;

  private PathPattern(String pattern) {
    if (!pattern.startsWith("/")) {
      throw new IllegalArgumentException("A path pattern starts with '/': " + pattern);
    }
    this.pattern = pattern;
    String body = pattern;
    boolean below = false;
    if (body.equals("/**")) {
      body = "";
      below = true;
    } else if (body.endsWith("/**")) {
      body = body.substring(0, body.length() - 3);
      below = true;
    }
    if (body.contains("**")) {
      throw new IllegalArgumentException("'**' may only end a path pattern: " + pattern);
    }
    this.segments = body.isEmpty() ? new String[0] : body.substring(1).split("/", -1);
    for (String s : segments) {
      if (s.contains("*") && !s.equals("*")) {
        throw new IllegalArgumentException("'*' stands for a whole segment only: " + pattern);
      }
    }
    this.anyBelow = below;
  }

  public static PathPattern of(String pattern) {
    return new PathPattern(Objects.requireNonNull(pattern, "pattern"));
  }

  public boolean matches(String path) {
    if (path == null || !path.startsWith("/")) {
      return false;
    }
    String[] parts = path.length() == 1 ? new String[] {""} : path.substring(1).split("/", -1);
    if (segments.length == 0) {
      return anyBelow || (parts.length == 1 && parts[0].isEmpty());
    }
    if (anyBelow ? parts.length < segments.length : parts.length != segments.length) {
      return false;
    }
    for (int i = 0; i < segments.length; i++) {
      if (!segments[i].equals("*") ? !segments[i].equals(parts[i]) : parts[i].isEmpty()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return pattern;
  }
}
