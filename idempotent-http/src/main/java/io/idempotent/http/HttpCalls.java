package io.idempotent.http;

import io.idempotent.Effects;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotentCall;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * What the servlet filter and the WebFlux filter share beyond the request types: the idempotent call a
 * request becomes, the details of their refusals and what they log. Utility class.
 */
final class HttpCalls {

  static final System.Logger LOG = System.getLogger("io.idempotent.http");

  static final String IN_PROGRESS_DETAIL = "A request with this Idempotency-Key is still being processed; retry later";

  static final String KEY_REUSED_DETAIL = "This Idempotency-Key was already used for a different request (method,"
      + " path, query, content type or body differ); use a new key for a new request";

  static final String STORE_UNAVAILABLE_DETAIL =
      "The idempotency store is unavailable; nothing was done. Retry with the same Idempotency-Key";

  static final String RESULT_NOT_RECORDED_LOG = "A response was too large to record; it was sent and not recorded,"
      + " so a retry with the same key runs again";

  private HttpCalls() {}

  /** The call a request with {@code key} and {@code fingerprint} from {@code client} (null: none) runs as. */
  static IdempotentCall<RecordedResponse> call(HttpIdempotencySettings settings, String key, String fingerprint,
      @Nullable String client) {
    IdempotentCall<RecordedResponse> call = idempotency(settings).call(settings.namespace(), RecordedResponse.class)
        .key(key)
        .payload(fingerprint)
        .onInProgress(settings.onInProgress())
        .store(settings.store())
        // the filter runs before (outside) any transaction of the application's, whose commits have
        // happened by the time the response is recorded: the record is written on its own in every mode
        .effects(Effects.EXTERNAL);
    if (client != null) {
      call.scope(client);
    }
    if (settings.ttl() != null) {
      call.ttl(settings.ttl());
    }
    if (settings.lease() != null) {
      call.lease(settings.lease());
    }
    if (settings.waitTimeout() != null) {
      call.waitTimeout(settings.waitTimeout());
    }
    return call;
  }

  private static Idempotency idempotency(HttpIdempotencySettings settings) {
    Idempotency configured = settings.idempotency();
    return configured != null ? configured : Idempotency.global();
  }

  static String keyMissingDetail(String method, String path) {
    return method + " " + path
        + " needs an Idempotency-Key header, such as Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\"";
  }

  static String pathAmbiguousDetail(String sent, String reason) {
    return "The request path " + sent + " is ambiguous: " + reason + ". Servers and applications may read it as"
        + " different paths, so it is not run; send the path in its plain form";
  }

  static String tooLargeDetail(int limit) {
    return "The request body is larger than " + limit + " bytes, the most this endpoint reads for an idempotent"
        + " request; nothing was done";
  }

  static void logNotRecorded(String method, String path, String reason) {
    LOG.log(System.Logger.Level.INFO, "A response to " + method + " " + path + " was not recorded: " + reason
        + "; its Idempotency-Key is released, so a retry runs again");
  }

  /**
   * Logs why the store answers 503, at most once every ten seconds (an outage answers every request so):
   * the cause is in the log, not only in the client's problem body. Thread-safe.
   */
  static final class UnavailableLog {
    private static final long PAUSE_NANOS = 10_000_000_000L;

    private final AtomicLong last = new AtomicLong();

    void report(IdempotencyStoreException e) {
      long now = System.nanoTime();
      long previous = last.get();
      if ((previous == 0 || now - previous > PAUSE_NANOS) && last.compareAndSet(previous, now)) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        LOG.log(System.Logger.Level.WARNING, "The idempotency store is unavailable, so requests with an"
            + " Idempotency-Key are answered 503 (said once every ten seconds while it lasts): "
            + cause.getMessage());
      }
    }
  }

  /** Thrown from inside the call so that the engine releases the key: the response is not to be recorded. */
  static final class NotRecorded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotRecorded() {
      super("not recorded", null, false, false);
    }
  }
}
