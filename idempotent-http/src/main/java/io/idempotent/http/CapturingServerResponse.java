package io.idempotent.http;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response as a WebFlux application writes it behind {@link IdempotencyWebFilter}. Status and headers go
 * to the real response as they are set; the body is held in memory (copied out of its buffers, which are
 * released at once), so that it can be recorded whole and sent only once the outcome is known: a handler that
 * fails half-way sends nothing of its half. A body over the limit, or one written with {@code
 * writeAndFlushWith} (a stream: server-sent events, ...), turns the capture into a pass-through: what was held
 * is sent, the rest goes straight to the client, and the response is not recorded. {@code setComplete()}
 * sends nothing yet: the held response is sent, with its exact length, by {@link #sendHeld()}. Thread-safe.
 */
final class CapturingServerResponse extends ServerHttpResponseDecorator {

  private final int limit;
  private ByteArrayOutputStream held = new ByteArrayOutputStream();
  private @Nullable String passReason;

  CapturingServerResponse(ServerHttpResponse real, int limit) {
    super(real);
    this.limit = limit;
  }

  /** Why the response is passed through rather than recorded, or null while it is held whole. */
  synchronized @Nullable String passReason() {
    return passReason;
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
    return Mono.defer(() -> {
      if (passReason() != null) {
        return getDelegate().writeWith(body);
      }
      long[] size = {heldSize()};
      boolean[] over = {false};
      // the buffers that still fit are held; the first that does not opens a second window: it and the
      // rest are sent after what was held, as they come
      return Flux.from(body)
          .windowUntil(buffer -> {
            if (over[0]) {
              return false;
            }
            size[0] += buffer.readableByteCount();
            over[0] = size[0] > limit;
            return over[0];
          }, true)
          .index()
          .concatMap(window -> window.getT1() == 0
              ? window.getT2().doOnNext(this::hold).then()
              : getDelegate().writeWith(Flux.concat(
                  passHeld("its body is larger than the recording limit of " + limit + " bytes"), window.getT2())))
          .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
          .then();
    });
  }

  @Override
  public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
    return Mono.defer(() -> {
      if (passReason() != null) {
        return getDelegate().writeAndFlushWith(body);
      }
      Mono<DataBuffer> held = passHeld("the application streams it (writeAndFlushWith)");
      Flux<Publisher<? extends DataBuffer>> rest = Flux.from(body).map(p -> p);
      return getDelegate().writeAndFlushWith(Flux.concat(Mono.just(held), rest));
    });
  }

  /** Held, nothing is sent yet: {@link #sendHeld()} completes the response once the outcome is known. */
  @Override
  public Mono<Void> setComplete() {
    return Mono.defer(() -> passReason() != null ? getDelegate().setComplete() : Mono.empty());
  }

  private synchronized long heldSize() {
    return held.size();
  }

  private void hold(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      synchronized (this) {
        held.writeBytes(bytes);
      }
    } finally {
      DataBufferUtils.release(buffer);
    }
  }

  /**
   * Turns the capture into a pass-through for {@code reason}; returns the held body to send before the rest
   * (its buffer made when subscribed, so a write that never happens leaks nothing).
   */
  private synchronized Mono<DataBuffer> passHeld(String reason) {
    if (passReason == null) {
      passReason = reason;
    }
    byte[] bytes = held.toByteArray();
    held = new ByteArrayOutputStream(0); // what was held is sent: nothing more is kept
    return bytes.length == 0 ? Mono.empty() : Mono.fromSupplier(() -> bufferFactory().wrap(bytes));
  }

  /** Sends the held body (with its exact length) to the client; nothing once the response passed through. */
  Mono<Void> sendHeld() {
    return Mono.defer(() -> {
      byte[] bytes;
      synchronized (this) {
        if (passReason != null) {
          return Mono.empty();
        }
        bytes = held.toByteArray();
      }
      return send(getDelegate(), status(), bytes);
    });
  }

  /** Sends {@code body} as the whole body of {@code response}, whose status is {@code status}. */
  static Mono<Void> send(ServerHttpResponse response, int status, byte[] body) {
    if (body.length > 0 || (status >= 200 && status != 204 && status != 304)) {
      response.getHeaders().setContentLength(body.length);
    }
    if (body.length == 0) {
      return response.setComplete();
    }
    return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
  }

  /** Forgets the held body (the handler failed): nothing of it reaches the client. */
  synchronized void discard() {
    if (passReason == null) {
      held.reset();
    }
  }

  private int status() {
    HttpStatusCode code = getStatusCode();
    return code == null ? 200 : code.value();
  }

  /** The held response as it is recorded: status, the named headers (sanitized as sent), body bytes. */
  synchronized RecordedResponse record(List<String> headerNames) {
    HttpHeaders all = getHeaders();
    List<RecordedResponse.Header> headers = new ArrayList<>();
    for (String name : headerNames) {
      List<String> values = all.get(name);
      if (values != null) {
        for (String v : values) {
          if (v != null) {
            headers.add(new RecordedResponse.Header(name, HeaderValues.sanitized(v)));
          }
        }
      }
    }
    return new RecordedResponse(status(), headers, held.toByteArray());
  }
}
