package io.idempotent.http;

/**
 * The path a WebFlux request is routed by. WebFlux and Reactor Netty do not normalise a path: a handler
 * mapping sees each segment as sent, percent-decoded and without its parameters ({@code /%70ayments} and
 * {@code /payments;x=1} are {@code /payments}), and nothing else. So a path is plain when reading it by the
 * Servlet 6 rules ({@link CanonicalPath}) gives that same path: no suspicious sequence (an encoded
 * {@code /} or dot segment, a backslash, a control character, ...), no dot segment and no empty segment
 * before the last. Any other path is ambiguous: the routes would be matched against a path the handlers do
 * not see, so it is refused rather than let through unprotected. Stateless.
 */
final class ExchangePath {

  /** The request's paths, or why they cannot be told. */
  sealed interface Read permits Plain, Ambiguous {}

  /**
   * @param withinApplication what routes are matched against: the path without the application's context
   *     path ("/" for the context path itself), decoded, without path parameters
   * @param whole the whole path, context path included, decoded, without path parameters: for the fingerprint
   */
  record Plain(String withinApplication, String whole) implements Read {}

  /** {@code reason} says, for a person, what makes the path ambiguous. */
  record Ambiguous(String reason) implements Read {}

  private ExchangePath() {}

  /**
   * Reads a path as sent.
   *
   * @param raw the request's path, still percent-encoded
   * @param rawContextPath the part of {@code raw} that is the application's context path ("" for none)
   */
  static Read of(String raw, String rawContextPath) {
    String sent = raw.isEmpty() ? "/" : raw;
    CanonicalPath.Read read = CanonicalPath.of(sent);
    if (read instanceof CanonicalPath.Suspicious s) {
      return new Ambiguous("it holds " + s.sequence());
    }
    String[] segments = sent.substring(1).split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      int semicolon = segments[i].indexOf(';');
      String name = semicolon < 0 ? segments[i] : segments[i].substring(0, semicolon);
      if (name.equals(".") || name.equals("..")) {
        return new Ambiguous("it holds a dot segment, which this server passes to the application unresolved");
      }
      if (name.isEmpty() && i < segments.length - 1) {
        return new Ambiguous("it holds an empty segment, which this server passes to the application as one");
      }
    }
    String whole = ((CanonicalPath.Canonical) read).path();
    if (!sent.startsWith(rawContextPath)) {
      return new Ambiguous("its context path " + rawContextPath + " is not where it begins");
    }
    CanonicalPath.Read within = CanonicalPath.of(sent.substring(rawContextPath.length()));
    if (!(within instanceof CanonicalPath.Canonical c)) {
      return new Ambiguous("the path within the context path is not a path");
    }
    return new Plain(c.path().isEmpty() ? "/" : c.path(), whole);
  }
}
