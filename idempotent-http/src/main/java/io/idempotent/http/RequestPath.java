package io.idempotent.http;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The path a request is routed by: what the container mapped it to (servlet path and path info: decoded,
 * normalised, without path parameters), provided that the path as sent reads the same by the Servlet 6
 * rules ({@link CanonicalPath}). A path that does not (an encoded {@code /} or dot segment, a backslash, a
 * control character, or a container that normalised it another way) is ambiguous: the application behind
 * the container may route it differently from the container, so no route can be trusted to cover it.
 * Stateless.
 */
final class RequestPath {

  /** The request's paths, or why they cannot be told. */
  sealed interface Read permits Mapped, Ambiguous {}

  /**
   * @param withinContext what routes are matched against: the servlet path plus the path info ("/" for
   *     the context root)
   * @param canonical the whole path, context path included, decoded and normalised: for the fingerprint
   */
  record Mapped(String withinContext, String canonical) implements Read {}

  /** {@code reason} says, for a person, what makes the path ambiguous. */
  record Ambiguous(String reason) implements Read {}

  private RequestPath() {}

  static Read of(HttpServletRequest request) {
    String sent = request.getRequestURI();
    CanonicalPath.Read read = CanonicalPath.of(sent);
    if (read instanceof CanonicalPath.Suspicious s) {
      return new Ambiguous("it holds " + s.sequence());
    }
    String canonical = ((CanonicalPath.Canonical) read).path();
    String mapped;
    try {
      String info = request.getPathInfo();
      mapped = request.getServletPath() + (info == null ? "" : info);
    } catch (IllegalArgumentException e) {
      // Jetty, when it accepts an ambiguous path and is not set to decode one for the servlets
      return new Ambiguous("the container does not decode it (" + e.getMessage() + ")");
    }
    // the request's context path is the part of the path as sent that chose the context (Tomcat: undecoded)
    CanonicalPath.Read context = CanonicalPath.of(request.getContextPath());
    String contextPath = context instanceof CanonicalPath.Canonical c ? c.path() : request.getContextPath();
    if (!canonical.equals(contextPath + mapped)) {
      return new Ambiguous("the container maps it to " + contextPath + mapped + ", the Servlet rules to " + canonical);
    }
    return new Mapped(mapped.isEmpty() ? "/" : mapped, canonical);
  }
}
