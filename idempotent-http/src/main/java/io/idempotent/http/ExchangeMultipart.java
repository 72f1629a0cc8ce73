package io.idempotent.http;

import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.Part;
import reactor.core.publisher.Mono;

/**
 * A WebFlux request's multipart form body ({@code multipart/form-data}) counted by its parts, as the servlet
 * filter counts one ({@code MultipartForms}): a client that retries a multipart request usually sends a new
 * random boundary, so the bytes differ from one attempt to the next while the form is the same. What counts is
 * each part in order: its name, file name, content type and bytes, digested as the servlet filter digests
 * them. Utility class.
 */
final class ExchangeMultipart {

  /** The media type a multipart fingerprint names, in place of the header with its boundary. */
  static final String FORM_DATA = "multipart/form-data";

  private ExchangeMultipart() {}

  static boolean isFormData(@Nullable String contentType) {
    return contentType != null && contentType.trim().toLowerCase(Locale.ROOT).startsWith(FORM_DATA);
  }

  /**
   * The digest of the parts of {@code message}'s body (already in memory, at most {@code limit} bytes); fails
   * with {@link Malformed} when the body is not a multipart body its boundary reads.
   */
  static Mono<byte[]> digest(ReactiveHttpInputMessage message, int limit) {
    DefaultPartHttpMessageReader reader = new DefaultPartHttpMessageReader();
    reader.setMaxInMemorySize(Math.max(limit, 1)); // every part stays in memory: the body is there already
    return Mono.defer(() -> {
      RequestFingerprint.Digest digest = new RequestFingerprint.Digest();
      return reader.read(ResolvableType.forClass(Part.class), message, Map.of())
          .concatMap(part -> DataBufferUtils.join(part.content()).map(ExchangeMultipart::bytes)
              .defaultIfEmpty(new byte[0])
              .doOnNext(bytes -> {
                digest.add(part.name());
                digest.add(part instanceof FilePart file ? file.filename() : null);
                String type = part.headers().getFirst(HttpHeaders.CONTENT_TYPE);
                digest.add(type == null ? null : type.trim().toLowerCase(Locale.ROOT));
                digest.add(bytes);
              }))
          .then(Mono.fromSupplier(digest::bytes))
          .onErrorMap(e -> !(e instanceof Malformed), e -> new Malformed("The multipart body could not be read ("
              + e.getMessage() + "); nothing was done"));
    });
  }

  private static byte[] bytes(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      return bytes;
    } finally {
      DataBufferUtils.release(buffer);
    }
  }

  /** The body is not a well-formed multipart body; the message says why, for the client. */
  static final class Malformed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Malformed(String detail) {
      super(detail, null, false, false);
    }
  }
}
