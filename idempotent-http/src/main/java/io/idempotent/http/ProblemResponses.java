package io.idempotent.http;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * The filter's own refusals as RFC 9457 problem details ({@code application/problem+json}): {@code type}
 * (a URI naming the kind of problem, which is also its documentation), {@code title} (the status's reason),
 * {@code status}, {@code detail} (what is wrong with this request, for a person) and {@code code} (the
 * kind of problem, for a program: the last part of the type, e.g. {@code idempotency-key-missing}). The
 * response links the type's documentation: {@code Link: <type>; rel="describedby"}. Utility class; no
 * argument may be null.
 */
public final class ProblemResponses {

  public static final String MEDIA_TYPE = "application/problem+json";

  /** What the filter refuses, with its status and the code in the body. */
  public enum Problem {
    KEY_MISSING(400, "Bad Request", "idempotency-key-missing"),
    KEY_MALFORMED(400, "Bad Request", "idempotency-key-malformed"),
    BODY_TOO_LARGE(413, "Content Too Large", "request-body-too-large"),
    BODY_MALFORMED(400, "Bad Request", "request-body-malformed"),
    PATH_AMBIGUOUS(400, "Bad Request", "request-path-ambiguous"),
    KEY_REUSED(422, "Unprocessable Content", "idempotency-key-reused"),
    IN_PROGRESS(409, "Conflict", "idempotency-key-in-progress"),
    STORE_UNAVAILABLE(503, "Service Unavailable", "idempotency-store-unavailable");

    final int status;
    final String title;
    final String code;

    Problem(int status, String title, String code) {
      this.status = status;
      this.title = title;
      this.code = code;
    }

    public int status() {
      return status;
    }

    public String code() {
      return code;
    }

    /**
     * The problem's type URI: {@code types} (see {@link HttpIdempotencySettings.Builder#problemTypes}) followed
     * by the code.
     */
    public URI type(URI types) {
      return URI.create(types + code);
    }
  }

  private ProblemResponses() {}

  /** The problem document's JSON, its type under {@code types}. */
  public static String json(Problem problem, URI types, String detail) {
    return "{\"type\":" + quote(problem.type(types).toString()) + ",\"title\":" + quote(problem.title)
        + ",\"status\":" + problem.status + ",\"detail\":" + quote(detail) + ",\"code\":" + quote(problem.code)
        + "}";
  }

  /** Sends the problem, its type under {@code types}, on {@code response} (unless it is already committed). */
  public static void send(HttpServletResponse response, Problem problem, URI types, String detail)
      throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.resetBuffer(); // headers a filter in front of this one set stay
    byte[] body = json(problem, types, detail).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status);
    response.setContentType(MEDIA_TYPE);
    response.setHeader("Cache-Control", CACHE_CONTROL);
    // added, not set: a Link a filter in front of this one set stays
    response.addHeader("Link", link(problem, types));
    if (retryLater(problem)) {
      response.setHeader("Retry-After", RETRY_AFTER);
    }
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
    response.flushBuffer();
  }

  /** The {@code Cache-Control} of every refusal: a refusal is about one request, never to be reused. */
  static final String CACHE_CONTROL = "no-store";

  /** The {@code Retry-After} of the refusals a retry may get past (see {@link #retryLater}), in seconds. */
  static final String RETRY_AFTER = "1";

  /** The {@code Link} header value that points to the problem type's documentation. */
  static String link(Problem problem, URI types) {
    return "<" + problem.type(types) + ">; rel=\"describedby\"";
  }

  /** Whether the same request may succeed soon, so that the refusal carries {@code Retry-After}. */
  static boolean retryLater(Problem problem) {
    return problem == Problem.IN_PROGRESS || problem == Problem.STORE_UNAVAILABLE;
  }

  static String quote(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c > 0x7E) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
