package io.idempotent.http;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The filter's own refusals as RFC 9457 problem details ({@code application/problem+json}): {@code title}
 * (the status's reason), {@code status}, {@code detail} (what is wrong, for a person) and {@code code}
 * (what is wrong, for a program, e.g. {@code idempotency-key-missing}). The type is {@code about:blank},
 * so it is left out. Utility class.
 */
public final class ProblemResponses {

  public static final String MEDIA_TYPE = "application/problem+json";

  /** What the filter refuses, with its status and the code in the body. */
  public enum Problem {
    KEY_MISSING(400, "Bad Request", "idempotency-key-missing"),
    KEY_MALFORMED(400, "Bad Request", "idempotency-key-malformed"),
    BODY_TOO_LARGE(413, "Content Too Large", "request-body-too-large"),
    BODY_MALFORMED(400, "Bad Request", "request-body-malformed"),
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
  }

  private ProblemResponses() {}

  /** The problem document's JSON. */
  public static String json(Problem problem, String detail) {
    return "{\"title\":" + quote(problem.title) + ",\"status\":" + problem.status + ",\"detail\":" + quote(detail)
        + ",\"code\":" + quote(problem.code) + "}";
  }

  /** Sends the problem on {@code response} (unless it is already committed). */
  public static void send(HttpServletResponse response, Problem problem, String detail) throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.resetBuffer(); // headers a filter in front of this one set stay
    byte[] body = json(problem, detail).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status);
    response.setContentType(MEDIA_TYPE);
    response.setHeader("Cache-Control", "no-store");
    if (problem == Problem.IN_PROGRESS || problem == Problem.STORE_UNAVAILABLE) {
      response.setHeader("Retry-After", "1");
    }
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
    response.flushBuffer();
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
