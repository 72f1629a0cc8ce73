package io.idempotent.http;

import java.net.http.HttpResponse;
import java.util.Objects;

/**
 * The final answer to a retried operation. Immutable.
 *
 * @param response the last response received (a success, a 4xx that is not retried, or the last 409/5xx
 *     when attempts or time ran out)
 * @param attempts how many requests were sent, the first included
 * @param replayed whether the server answered with {@code Idempotent-Replayed: true}: the operation had
 *     already been done by an earlier attempt (or call) with the same key, and this is its recorded answer
 * @param idempotencyKey the key every attempt carried
 */
public record RetriedResponse<T>(HttpResponse<T> response, int attempts, boolean replayed, String idempotencyKey) {

  public RetriedResponse {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
  }

  public int status() {
    return response.statusCode();
  }

  public T body() {
    return response.body();
  }
}
