package io.idempotent.http;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Multipart form bodies ({@code multipart/form-data}), which the container parses with the target
 * servlet's multipart configuration. Their raw bytes are no fingerprint: a client that retries a multipart
 * request usually sends a new random boundary, so the bytes (and the {@code Content-Type}) differ from one
 * attempt to the next while the form is the same. What counts is each part in order: its name, file name,
 * content type and bytes. Utility class.
 */
final class MultipartForms {

  /** The media type a multipart fingerprint names, in place of the header with its boundary. */
  static final String FORM_DATA = "multipart/form-data";

  private MultipartForms() {}

  /** How reading a multipart body through the container went. */
  sealed interface Read {
    /** The container parsed it; {@code digest} stands for the body in the fingerprint. */
    @SuppressWarnings("ArrayRecordComponent") // read once, never compared
    record Parsed(byte[] digest) implements Read {}

    /**
     * The container refused to parse, as {@code reason} says: either the target servlet has no multipart
     * configuration (the application reads the body itself, and the body is still unread) or a part is over
     * the container's limits (and some of the body is gone). See {@link #readWhole}.
     */
    record Refused(@Nullable String reason) implements Read {}

    /** The parts exceed the container's limits or this filter's, as {@code detail} says. */
    record TooLarge(String detail) implements Read {}

    /** The body is not a well-formed multipart body, as {@code detail} says. */
    record Malformed(String detail) implements Read {}
  }

  static boolean isFormData(String contentType) {
    return contentType != null && contentType.trim().toLowerCase(Locale.ROOT).startsWith(FORM_DATA);
  }

  /**
   * Asks the container for the parts. The servlet API has a container refuse with an
   * {@link IllegalStateException} both when the servlet has no multipart configuration (before it reads
   * anything) and when a part is over its limits (after it has read some of the body); a body still unread
   * tells the first from the second.
   */
  static Read read(HttpServletRequest request, long limit) throws IOException {
    Collection<Part> parts;
    try {
      parts = request.getParts();
    } catch (ServletException | RuntimeException e) {
      // containers wrap the refusal (Jetty: a ServletException around a BadMessageException around it)
      IllegalStateException refused = find(e, IllegalStateException.class);
      if (refused != null) {
        return new Read.Refused(refused.getMessage());
      }
      return new Read.Malformed("The multipart body could not be read (" + root(e).getMessage()
          + "); nothing was done");
    }
    long total = 0;
    for (Part part : parts) {
      total += part.getSize();
    }
    if (total > limit) {
      return new Read.TooLarge("The multipart body's parts hold more than " + limit + " bytes, the most this"
          + " endpoint reads for an idempotent request; nothing was done");
    }
    return new Read.Parsed(digest(parts));
  }

  private static <T extends Throwable> @Nullable T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static Throwable root(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  /**
   * Whether {@code body}, read after a {@link Read.Refused}, is the whole body the client declared. The
   * servlet API does not say whether a refusing container read some of the body first; a body shorter than
   * its {@code Content-Length} says it did. A chunked body declares no length, so it is taken as it is.
   */
  static boolean readWhole(HttpServletRequest request, byte[] body) {
    long declared = request.getContentLengthLong();
    return declared < 0 || declared == body.length;
  }

  private static byte[] digest(Collection<Part> parts) throws IOException {
    RequestFingerprint.Digest digest = new RequestFingerprint.Digest();
    for (Part part : parts) {
      digest.add(part.getName());
      digest.add(part.getSubmittedFileName());
      digest.add(part.getContentType() == null ? null : part.getContentType().trim().toLowerCase(Locale.ROOT));
      try (InputStream in = part.getInputStream()) {
        digest.add(in, part.getSize());
      }
    }
    return digest.bytes();
  }
}
