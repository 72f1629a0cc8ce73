package io.idempotent.http;

import java.io.ByteArrayOutputStream;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.CollectionUtils;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The exchange as a WebFlux application sees it behind {@link IdempotencyWebFilter}: its request body, already
 * read (and fingerprinted) by the filter, is read again from memory, as often as it is asked for; its form
 * data and multipart data are parsed from the same bytes (the exchange the server made would read the body
 * from the connection, where it is gone); its response is the capturing one. Further {@code mutate()}s keep
 * all three.
 */
final class BufferedExchange extends ServerWebExchangeDecorator {

  private static final ResolvableType FORM_DATA =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, String.class);
  private static final ResolvableType MULTIPART_DATA =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, Part.class);

  private final ServerHttpRequest request;
  private final ServerHttpResponse response;
  private final Mono<MultiValueMap<String, String>> formData;
  private final Mono<MultiValueMap<String, Part>> multipartData;

  BufferedExchange(ServerWebExchange exchange, byte[] body, ServerHttpResponse response, int maxInMemory) {
    super(exchange);
    this.request = new BufferedRequest(exchange.getRequest(), body, response.bufferFactory());
    this.response = response;
    MediaType type = contentType(request);
    if (type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type)) {
      FormHttpMessageReader reader = new FormHttpMessageReader();
      reader.setMaxInMemorySize(maxInMemory);
      this.formData = reader.readMono(FORM_DATA, request, Map.of()).switchIfEmpty(Mono.fromSupplier(
          BufferedExchange::empty)).cache();
    } else {
      this.formData = Mono.fromSupplier(BufferedExchange::empty);
    }
    if (type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)) {
      DefaultPartHttpMessageReader parts = new DefaultPartHttpMessageReader();
      parts.setMaxInMemorySize(maxInMemory);
      this.multipartData = new MultipartHttpMessageReader(parts).readMono(MULTIPART_DATA, request, Map.of())
          .switchIfEmpty(Mono.fromSupplier(BufferedExchange::empty)).cache();
    } else {
      this.multipartData = Mono.fromSupplier(BufferedExchange::empty);
    }
  }

  private static <V> MultiValueMap<String, V> empty() {
    return CollectionUtils.unmodifiableMultiValueMap(new LinkedMultiValueMap<>(0));
  }

  private static @Nullable MediaType contentType(ServerHttpRequest request) {
    try {
      return request.getHeaders().getContentType();
    } catch (InvalidMediaTypeException e) {
      return null;
    }
  }

  /**
   * Reads {@code body} into memory, each buffer copied out and released at once. Emits the bytes, or fails
   * with {@link TooLarge} (cancelling the rest of the body) as soon as they pass {@code limit}.
   */
  static Mono<byte[]> read(Flux<DataBuffer> body, int limit) {
    return Mono.defer(() -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      return body.<byte[]>handle((buffer, sink) -> {
        try {
          int n = buffer.readableByteCount();
          if (out.size() + (long) n > limit) {
            sink.error(new TooLarge());
            return;
          }
          byte[] chunk = new byte[n];
          buffer.read(chunk);
          out.writeBytes(chunk);
        } finally {
          DataBufferUtils.release(buffer);
        }
      }).doOnDiscard(DataBuffer.class, DataBufferUtils::release).then(Mono.fromSupplier(out::toByteArray));
    });
  }

  /** The body is larger than the filter reads. */
  static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body too large", null, false, false);
    }
  }

  @Override
  public ServerHttpRequest getRequest() {
    return request;
  }

  @Override
  public ServerHttpResponse getResponse() {
    return response;
  }

  @Override
  public Mono<MultiValueMap<String, String>> getFormData() {
    return formData;
  }

  @Override
  public Mono<MultiValueMap<String, Part>> getMultipartData() {
    return multipartData;
  }

  /** The request with its body in memory: each subscription to the body gets the bytes afresh. */
  static final class BufferedRequest extends ServerHttpRequestDecorator {
    private final byte[] body;
    private final DataBufferFactory buffers;

    BufferedRequest(ServerHttpRequest request, byte[] body, DataBufferFactory buffers) {
      super(request);
      this.body = body;
      this.buffers = buffers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
      return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(buffers.wrap(body)));
    }
  }
}
