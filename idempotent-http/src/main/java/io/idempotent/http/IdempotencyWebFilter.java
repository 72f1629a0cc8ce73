package io.idempotent.http;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.http.ProblemResponses.Problem;
import io.idempotent.runtime.IdempotentCall;
import io.idempotent.runtime.IdempotentMono;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The Spring WebFlux counterpart of {@link IdempotencyFilter}: runs each protected request at most once per
 * {@code Idempotency-Key} and client, and replays the first response to every retry, with the same settings
 * ({@link HttpIdempotencySettings}), the same answers and the same problem bodies ({@link ProblemResponses}).
 * Built on {@link IdempotentMono}: no store call runs on the server's event loop, and a duplicate that waits
 * ({@code OnInProgress.WAIT}) holds no thread. Thread-safe.
 *
 * <table>
 *   <caption>answers</caption>
 *   <tr><td>first request with a key</td><td>runs; a response below 500 is recorded and sent</td></tr>
 *   <tr><td>same key, same request, completed</td><td>the recorded response, with {@code Idempotent-Replayed: true}</td></tr>
 *   <tr><td>same key, first request still running</td><td>409 (or waits, with {@code OnInProgress.WAIT})</td></tr>
 *   <tr><td>same key, different request</td><td>422</td></tr>
 *   <tr><td>key missing on a route that requires it / malformed / too long</td><td>400</td></tr>
 *   <tr><td>a path that may be read as different paths (an encoded {@code /} or dot segment, a dot segment, an
 *       empty segment, a backslash, a control character, ...), with a method a route names</td><td>400, whatever
 *       the key</td></tr>
 *   <tr><td>body larger than the limit</td><td>413</td></tr>
 *   <tr><td>multipart form body that does not parse</td><td>400</td></tr>
 *   <tr><td>store failing</td><td>503, nothing runs</td></tr>
 *   <tr><td>5xx, or an error from the application</td><td>sent (or passed on) as is; the key is released so a
 *       retry runs</td></tr>
 *   <tr><td>the client goes away while the application runs</td><td>the application runs to its end (its
 *       effect may have happened) and its response is recorded; a retry gets it, replayed</td></tr>
 * </table>
 *
 * <p>Routes are matched against the path within the application (without its context path), decoded and
 * without path parameters ({@code /%70ayments} and {@code /payments;x=1} are {@code /payments}), as WebFlux's
 * handler mappings match it. WebFlux does not resolve dot segments or merge empty ones, so a path with either
 * (or with a sequence the Servlet 6 rules call suspicious) is refused with 400 rather than matched against a
 * path its handler does not see ({@link ExchangePath}). The whole path, context path included, is the path in
 * the request's fingerprint.
 *
 * <p>The request body is read up to the limit and handed on from memory, so the application reads it (and its
 * form or multipart data) as usual. A {@code multipart/form-data} body counts by its parts (name, file name,
 * content type, bytes), as for the servlet filter, since a retry usually carries a new boundary. The response body
 * is held until the outcome is known, as {@link CapturingServerResponse} describes; an error that reaches the
 * filter releases the key and is passed on to the server's error handling, whose answer is not recorded. The
 * client is the authenticated principal ({@link ServerWebExchange#getPrincipal()}) unless another
 * {@link ExchangeClientScopeResolver} is given; put the filter after the one that authenticates. The request's
 * key is the exchange attribute {@link #KEY_ATTRIBUTE}.
 */
public class IdempotencyWebFilter implements WebFilter {

  /** The response header that marks a replay. */
  public static final String REPLAYED_HEADER = IdempotencyFilter.REPLAYED_HEADER;

  /** The exchange attribute that holds the request's key (unquoted) for the application behind the filter. */
  public static final String KEY_ATTRIBUTE = IdempotencyFilter.KEY_ATTRIBUTE;

  private final HttpIdempotencySettings settings;
  private final ExchangeClientScopeResolver clientScope;
  private final IdempotencyKeyHeader keyHeader;
  private final HttpCalls.UnavailableLog unavailableLog = new HttpCalls.UnavailableLog();

  /**
   * @param settings as for the servlet filter; its {@link HttpIdempotencySettings#clientScope()} is not used
   * @param clientScope who the client of a request is
   */
  public IdempotencyWebFilter(HttpIdempotencySettings settings, ExchangeClientScopeResolver clientScope) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clientScope = Objects.requireNonNull(clientScope, "clientScope");
    this.keyHeader = new IdempotencyKeyHeader(settings.maxKeyLength(), settings.strictKeyHeader());
  }

  /** With the authenticated principal as the client ({@link ExchangeClientScopeResolver#principal()}). */
  public IdempotencyWebFilter(HttpIdempotencySettings settings) {
    this(settings, ExchangeClientScopeResolver.principal());
  }

  /** With the default settings, on {@link io.idempotent.runtime.Idempotency#global()}. */
  public IdempotencyWebFilter() {
    this(HttpIdempotencySettings.builder().build());
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    String method = request.getMethod().name();
    if (!settings.routesMethod(method)) {
      return chain.filter(exchange);
    }
    String sent = request.getPath().value();
    ExchangePath.Read path = ExchangePath.of(sent, request.getPath().contextPath().value());
    if (path instanceof ExchangePath.Ambiguous ambiguous) {
      return refuse(exchange.getResponse(), Problem.PATH_AMBIGUOUS,
          HttpCalls.pathAmbiguousDetail(sent, ambiguous.reason()));
    }
    ExchangePath.Plain plain = (ExchangePath.Plain) path;
    Route route = settings.routeFor(method, plain.withinApplication());
    if (route == null) {
      return chain.filter(exchange);
    }
    List<String> lines = request.getHeaders().get(IdempotencyKeyHeader.NAME);
    IdempotencyKeyHeader.Parsed parsed = keyHeader.parse(lines == null ? List.of() : lines);
    if (parsed instanceof IdempotencyKeyHeader.Parsed.Absent) {
      return route.requirement() == KeyRequirement.REQUIRED
          ? refuse(exchange.getResponse(), Problem.KEY_MISSING,
              HttpCalls.keyMissingDetail(method, plain.withinApplication()))
          : chain.filter(exchange);
    }
    if (parsed instanceof IdempotencyKeyHeader.Parsed.Malformed m) {
      return refuse(exchange.getResponse(), Problem.KEY_MALFORMED, m.problem());
    }
    String key = ((IdempotencyKeyHeader.Parsed.Key) parsed).value();
    int limit = settings.maxRequestBodyBytes();
    if (request.getHeaders().getContentLength() > limit) {
      return refuse(exchange.getResponse(), Problem.BODY_TOO_LARGE, HttpCalls.tooLargeDetail(limit));
    }
    return BufferedExchange.read(request.getBody(), limit)
        .flatMap(body -> prepare(request, plain.whole(), body, limit))
        .onErrorResume(BufferedExchange.TooLarge.class,
            e -> Mono.just(new Prepared.Refused(Problem.BODY_TOO_LARGE, HttpCalls.tooLargeDetail(limit))))
        .onErrorResume(ExchangeMultipart.Malformed.class,
            e -> Mono.just(new Prepared.Refused(Problem.BODY_MALFORMED, String.valueOf(e.getMessage()))))
        .flatMap(prepared -> {
          if (prepared instanceof Prepared.Refused refused) {
            return refuse(exchange.getResponse(), refused.problem(), refused.detail());
          }
          Prepared.Ready ready = (Prepared.Ready) prepared;
          exchange.getAttributes().put(KEY_ATTRIBUTE, key);
          return run(exchange, chain, key, ready.body(), ready.fingerprint(), plain.withinApplication());
        });
  }

  /** A request ready to run with its body and fingerprint, or the refusal to send instead. */
  private sealed interface Prepared {
    @SuppressWarnings("ArrayRecordComponent") // the body as read, handed on; never compared
    record Ready(byte[] body, String fingerprint) implements Prepared {}

    record Refused(Problem problem, String detail) implements Prepared {}
  }

  /**
   * Fingerprints the request: a multipart form by its parts, as the servlet filter does (a retry usually
   * carries a new boundary); any other body by its bytes.
   */
  private static Mono<Prepared> prepare(ServerHttpRequest request, String path, byte[] body, int limit) {
    String method = request.getMethod().name();
    String query = request.getURI().getRawQuery();
    String contentType = request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
    if (ExchangeMultipart.isFormData(contentType)) {
      var message = new BufferedExchange.BufferedRequest(request, body, DefaultDataBufferFactory.sharedInstance);
      return ExchangeMultipart.digest(message, limit).map(digest -> new Prepared.Ready(body,
          RequestFingerprint.of(method, path, query, ExchangeMultipart.FORM_DATA, digest)));
    }
    return Mono.just(new Prepared.Ready(body, RequestFingerprint.of(method, path, query, contentType, body)));
  }

  /** What the idempotent call ended with: its result, or the error it emitted. */
  private sealed interface Ended {
    record Result(CallResult<RecordedResponse> result) implements Ended {}

    record Failed(Throwable error) implements Ended {}
  }

  private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, String key, byte[] body,
      String fingerprint, String path) {
    ServerHttpResponse response = exchange.getResponse();
    return clientScope.resolve(exchange).map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap(client -> {
      IdempotentCall<RecordedResponse> call = HttpCalls.call(settings, key, fingerprint, client.orElse(null));
      CapturingServerResponse capture = new CapturingServerResponse(response, settings.maxRecordedBodyBytes());
      ServerWebExchange buffered = new BufferedExchange(exchange, body, capture, settings.maxRequestBodyBytes());
      // headers a filter in front of this one set; those the application adds go if it fails
      HttpHeaders before = HttpHeaders.copyOf(response.getHeaders());
      AtomicBoolean ran = new AtomicBoolean();
      String method = exchange.getRequest().getMethod().name();
      return IdempotentMono.execute(call, () -> {
        ran.set(true);
        return handle(buffered, capture, chain, method, path);
      })
          .<Ended>map(Ended.Result::new)
          .onErrorResume(e -> Mono.just(new Ended.Failed(e)))
          .flatMap(ended -> answer(ended, response, capture, ran.get(), before));
    });
  }

  private Mono<Void> answer(Ended ended, ServerHttpResponse response, CapturingServerResponse capture, boolean ran,
      HttpHeaders before) {
    if (ended instanceof Ended.Result r) {
      return r.result().replayed() ? replay(r.result().value(), response) : capture.sendHeld();
    }
    Throwable e = ((Ended.Failed) ended).error();
    if (e instanceof HttpCalls.NotRecorded) {
      // the key is released; what the application wrote is sent (or already passed through) as it is
      return capture.sendHeld();
    }
    if (!ran && e instanceof IdempotencyInProgressException) {
      return refuse(response, Problem.IN_PROGRESS, HttpCalls.IN_PROGRESS_DETAIL);
    }
    if (!ran && e instanceof IdempotencyKeyReusedException) {
      return refuse(response, Problem.KEY_REUSED, HttpCalls.KEY_REUSED_DETAIL);
    }
    if (!ran && e instanceof IdempotencyStoreException store) {
      unavailableLog.report(store);
      return refuse(response, Problem.STORE_UNAVAILABLE, HttpCalls.STORE_UNAVAILABLE_DETAIL);
    }
    if (e instanceof IdempotencyResultException) {
      HttpCalls.LOG.log(System.Logger.Level.WARNING, HttpCalls.RESULT_NOT_RECORDED_LOG, e);
      return capture.sendHeld();
    }
    // the application's error (or its own idempotent call's refusal): nothing of its response is sent, and
    // headers it set (a Location, a cookie) go with it, for the server's error handling to answer
    capture.discard();
    if (!response.isCommitted()) {
      response.getHeaders().clear();
      response.getHeaders().putAll(before);
      response.getCookies().clear();
      response.setStatusCode(null);
    }
    return Mono.error(e);
  }

  /**
   * Runs the application; emits its response to record, or fails with {@link HttpCalls.NotRecorded} to release
   * the key.
   */
  private Mono<RecordedResponse> handle(ServerWebExchange buffered, CapturingServerResponse capture,
      WebFilterChain chain, String method, String path) {
    return chain.filter(buffered).then(Mono.fromCallable(() -> {
      String reason = capture.passReason();
      if (reason != null) {
        HttpCalls.logNotRecorded(method, path, reason);
        throw new HttpCalls.NotRecorded();
      }
      RecordedResponse recorded = capture.record(settings.recordedHeaders());
      if (recorded.status() >= 500 && !settings.recordServerErrors()) {
        throw new HttpCalls.NotRecorded();
      }
      return recorded;
    }));
  }

  private static Mono<Void> replay(RecordedResponse recorded, ServerHttpResponse response) {
    // headers a filter in front of this one set (CORS, security headers) stay, as on a first answer
    response.setStatusCode(HttpStatusCode.valueOf(recorded.status()));
    HttpHeaders headers = response.getHeaders();
    for (RecordedResponse.Header h : recorded.headers()) {
      if (h.name().equalsIgnoreCase(HttpHeaders.CONTENT_TYPE)) {
        headers.set(HttpHeaders.CONTENT_TYPE, h.value());
      } else {
        headers.add(h.name(), h.value());
      }
    }
    headers.set(REPLAYED_HEADER, "true");
    return CapturingServerResponse.send(response, recorded.status(), recorded.body());
  }

  private Mono<Void> refuse(ServerHttpResponse response, Problem problem, String detail) {
    if (response.isCommitted()) {
      return Mono.empty();
    }
    byte[] body = ProblemResponses.json(problem, settings.problemTypes(), detail).getBytes(StandardCharsets.UTF_8);
    response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
    HttpHeaders headers = response.getHeaders();
    headers.set(HttpHeaders.CONTENT_TYPE, ProblemResponses.MEDIA_TYPE);
    headers.set(HttpHeaders.CACHE_CONTROL, ProblemResponses.CACHE_CONTROL);
    // added, not set: a Link a filter in front of this one set stays
    headers.add(HttpHeaders.LINK, ProblemResponses.link(problem, settings.problemTypes()));
    if (ProblemResponses.retryLater(problem)) {
      headers.set(HttpHeaders.RETRY_AFTER, ProblemResponses.RETRY_AFTER);
    }
    return CapturingServerResponse.send(response, problem.status(), body);
  }
}
