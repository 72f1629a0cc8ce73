package io.idempotent.http;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.http.ProblemResponses.Problem;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotentCall;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Runs each protected request at most once per {@code Idempotency-Key} and client, and replays the first
 * response to every retry. Built on the programmatic API ({@link IdempotentCall}) with the request's
 * fingerprint as the payload, so it has the stores, events and {@link Idempotency#lastOutcome()} of
 * {@code @Idempotent} methods. Thread-safe.
 *
 * <table>
 *   <caption>answers</caption>
 *   <tr><td>first request with a key</td><td>runs; a response below 500 is recorded and sent</td></tr>
 *   <tr><td>same key, same request, completed</td><td>the recorded response, with {@code Idempotent-Replayed: true}</td></tr>
 *   <tr><td>same key, first request still running</td><td>409 (or waits, with {@code OnInProgress.WAIT})</td></tr>
 *   <tr><td>same key, different request</td><td>422</td></tr>
 *   <tr><td>key missing on a route that requires it / malformed / too long</td><td>400</td></tr>
 *   <tr><td>a path that may be read as different paths (an encoded {@code /} or dot segment, a backslash, a
 *       control character, ...), with a method a route names</td><td>400, whatever the key</td></tr>
 *   <tr><td>body larger than the limit (or a multipart part larger than the container's)</td><td>413</td></tr>
 *   <tr><td>multipart body the container cannot parse</td><td>400</td></tr>
 *   <tr><td>store failing</td><td>503, nothing runs</td></tr>
 *   <tr><td>5xx or an exception from the application</td><td>sent (or rethrown) as is; the key is released so a retry runs</td></tr>
 * </table>
 *
 * <p>Routes are matched against the path the container mapped the request by: servlet path plus path info,
 * decoded and normalised, without path parameters ({@code /a/../payments}, {@code /%70ayments} and
 * {@code /payments;x=1} are {@code /payments}, as for the servlet they reach). That path, with the context
 * path, is also the path in the request's fingerprint, so a retry through another spelling of the same path
 * replays. A path the Servlet 6 rules refuse as ambiguous, or that the container normalised otherwise, is
 * refused rather than let through unprotected.
 *
 * <p>Refusals have an RFC 9457 {@code application/problem+json} body with a documented type
 * ({@link ProblemResponses}).
 */
public class IdempotencyFilter extends HttpFilter {

  private static final long serialVersionUID = 1L;

  /** The response header that marks a replay. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** The request attribute that holds the request's key (unquoted) for the application behind the filter. */
  public static final String KEY_ATTRIBUTE = "io.idempotent.http.key";

  private final transient HttpIdempotencySettings settings;
  private final transient HttpCalls.UnavailableLog unavailableLog = new HttpCalls.UnavailableLog();
  private final transient IdempotencyKeyHeader keyHeader;

  public IdempotencyFilter(HttpIdempotencySettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.keyHeader = new IdempotencyKeyHeader(settings.maxKeyLength(), settings.strictKeyHeader());
  }

  /** With the default settings, on {@link Idempotency#global()}. */
  public IdempotencyFilter() {
    this(HttpIdempotencySettings.builder().build());
  }

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request.getDispatcherType() != DispatcherType.REQUEST) {
      chain.doFilter(request, response); // an error page, a forward or an async dispatch of a request already seen
      return;
    }
    if (!settings.routesMethod(request.getMethod())) {
      chain.doFilter(request, response);
      return;
    }
    RequestPath.Read path = RequestPath.of(request);
    if (path instanceof RequestPath.Ambiguous ambiguous) {
      refuse(response, Problem.PATH_AMBIGUOUS, HttpCalls.pathAmbiguousDetail(request.getRequestURI(),
          ambiguous.reason()));
      return;
    }
    RequestPath.Mapped mapped = (RequestPath.Mapped) path;
    Route route = settings.routeFor(request.getMethod(), mapped.withinContext());
    if (route == null) {
      chain.doFilter(request, response);
      return;
    }
    List<String> lines = Collections.list(request.getHeaders(IdempotencyKeyHeader.NAME));
    IdempotencyKeyHeader.Parsed parsed = keyHeader.parse(lines);
    if (parsed instanceof IdempotencyKeyHeader.Parsed.Absent) {
      if (route.requirement() == KeyRequirement.REQUIRED) {
        refuse(response, Problem.KEY_MISSING, HttpCalls.keyMissingDetail(request.getMethod(), mapped.withinContext()));
      } else {
        chain.doFilter(request, response);
      }
      return;
    }
    if (parsed instanceof IdempotencyKeyHeader.Parsed.Malformed m) {
      refuse(response, Problem.KEY_MALFORMED, m.problem());
      return;
    }
    String key = ((IdempotencyKeyHeader.Parsed.Key) parsed).value();
    Prepared prepared = prepare(request, mapped.canonical());
    if (prepared instanceof Prepared.Refused refused) {
      refuse(response, refused.problem(), refused.detail());
      return;
    }
    Prepared.Ready ready = (Prepared.Ready) prepared;
    request.setAttribute(KEY_ATTRIBUTE, key);
    run(ready.request(), response, chain, key, ready.fingerprint(), mapped.withinContext());
  }

  /** A request ready to run with its fingerprint, or the refusal to send instead. */
  private sealed interface Prepared {
    record Ready(HttpServletRequest request, String fingerprint) implements Prepared {}

    record Refused(Problem problem, String detail) implements Prepared {}

    static Prepared refused(Problem problem, String detail) {
      return new Refused(problem, detail);
    }
  }

  /**
   * Reads the body and fingerprints the request: a multipart form by its parts, which the container keeps
   * (no copy of the body here); any other body by its bytes, held in memory for the application to read.
   */
  private Prepared prepare(HttpServletRequest request, String path) throws IOException {
    int limit = settings.maxRequestBodyBytes();
    if (request.getContentLengthLong() > limit) {
      return Prepared.refused(Problem.BODY_TOO_LARGE, tooLarge(limit));
    }
    String refusedMultipart = null;
    if (MultipartForms.isFormData(request.getContentType())) {
      MultipartForms.Read read = MultipartForms.read(request, limit);
      if (read instanceof MultipartForms.Read.Parsed parsed) {
        return new Prepared.Ready(request, RequestFingerprint.of(request.getMethod(), path, request.getQueryString(),
            MultipartForms.FORM_DATA, parsed.digest()));
      }
      if (read instanceof MultipartForms.Read.TooLarge tooLarge) {
        return Prepared.refused(Problem.BODY_TOO_LARGE, tooLarge.detail());
      }
      if (read instanceof MultipartForms.Read.Malformed malformed) {
        return Prepared.refused(Problem.BODY_MALFORMED, malformed.detail());
      }
      refusedMultipart = ((MultipartForms.Read.Refused) read).reason();
    }
    byte[] body = BufferedBodyRequest.readUpTo(request.getInputStream(), limit);
    if (body.length > limit) {
      return Prepared.refused(Problem.BODY_TOO_LARGE, tooLarge(limit));
    }
    if (refusedMultipart != null && !MultipartForms.readWhole(request, body)) {
      return Prepared.refused(Problem.BODY_TOO_LARGE, "The multipart body is larger than this endpoint accepts ("
          + refusedMultipart + "); nothing was done");
    }
    // a multipart body the container refused and left whole: its servlet reads the bytes itself
    return new Prepared.Ready(new BufferedBodyRequest(request, body), RequestFingerprint.of(request.getMethod(), path,
        request.getQueryString(), request.getContentType(), body));
  }

  private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, String key,
      String fingerprint, String path) throws IOException, ServletException {
    CapturingResponse capture = new CapturingResponse(response, settings.maxRecordedBodyBytes());
    IdempotentCall<RecordedResponse> call =
        HttpCalls.call(settings, key, fingerprint, settings.clientScope().resolve(request));
    boolean[] ran = {false};
    CallResult<RecordedResponse> result;
    try {
      result = call.execute(() -> {
        ran[0] = true;
        return handle(request, capture, chain, path);
      });
    } catch (HttpCalls.NotRecorded e) {
      // the key is released; what the application wrote is sent (or already passed through) as it is
      capture.sendHeld();
      return;
    } catch (IdempotencyInProgressException e) {
      if (ran[0]) {
        throw e; // the application's own idempotent call, not this request's key
      }
      refuse(response, Problem.IN_PROGRESS, HttpCalls.IN_PROGRESS_DETAIL);
      return;
    } catch (IdempotencyKeyReusedException e) {
      if (ran[0]) {
        throw e;
      }
      refuse(response, Problem.KEY_REUSED, HttpCalls.KEY_REUSED_DETAIL);
      return;
    } catch (IdempotencyStoreException e) {
      if (ran[0]) {
        throw e;
      }
      unavailableLog.report(e);
      refuse(response, Problem.STORE_UNAVAILABLE, HttpCalls.STORE_UNAVAILABLE_DETAIL);
      return;
    } catch (IdempotencyResultException e) {
      HttpCalls.LOG.log(System.Logger.Level.WARNING, HttpCalls.RESULT_NOT_RECORDED_LOG, e);
      capture.sendHeld();
      return;
    } catch (Exception | Error e) {
      capture.discard();
      if (!response.isCommitted()) {
        response.reset(); // headers the failed handler set (a Location, a cookie) go with it
      }
      throw rethrown(e);
    }
    if (result.replayed()) {
      replay(result.value(), response);
    } else {
      capture.sendHeld();
    }
  }

  /**
   * Runs the application; returns its response to record, or throws {@link HttpCalls.NotRecorded} to release
   * the key.
   */
  private RecordedResponse handle(HttpServletRequest request, CapturingResponse capture, FilterChain chain,
      String path) throws IOException, ServletException {
    chain.doFilter(request, capture);
    if (request.isAsyncStarted()) {
      capture.passThrough("the application answers it asynchronously");
    }
    String reason = capture.passReason();
    if (reason != null) {
      HttpCalls.logNotRecorded(request.getMethod(), path, reason);
      throw new HttpCalls.NotRecorded();
    }
    RecordedResponse recorded = capture.record(settings.recordedHeaders());
    if (recorded.status() >= 500 && !settings.recordServerErrors()) {
      throw new HttpCalls.NotRecorded();
    }
    return recorded;
  }

  private static void replay(RecordedResponse recorded, HttpServletResponse response) throws IOException {
    // no reset: headers a filter in front of this one set (CORS, security headers) stay, as on a first answer
    response.setStatus(recorded.status());
    for (RecordedResponse.Header h : recorded.headers()) {
      if (h.name().equalsIgnoreCase("Content-Type")) {
        response.setContentType(h.value());
      } else {
        response.addHeader(h.name(), h.value());
      }
    }
    response.setHeader(REPLAYED_HEADER, "true");
    byte[] body = recorded.body();
    int status = recorded.status();
    if (body.length > 0 || (status >= 200 && status != 204 && status != 304)) {
      response.setContentLength(body.length);
    }
    if (body.length > 0) {
      response.getOutputStream().write(body);
    }
  }

  /** The application's exception, unchanged (the body only throws what a filter chain throws). */
  private static ServletException rethrown(Throwable t) throws IOException {
    if (t instanceof IOException io) {
      throw io;
    }
    if (t instanceof ServletException se) {
      return se;
    }
    if (t instanceof RuntimeException re) {
      throw re;
    }
    if (t instanceof Error er) {
      throw er;
    }
    return new ServletException(t);
  }

  private static String tooLarge(int limit) {
    return HttpCalls.tooLargeDetail(limit);
  }

  private void refuse(HttpServletResponse response, Problem problem, String detail) throws IOException {
    ProblemResponses.send(response, problem, settings.problemTypes(), detail);
  }
}
