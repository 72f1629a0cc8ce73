package io.idempotent.examples.shop;

/**
 * A response as a web client would see it. Immutable.
 *
 * @param status the HTTP status
 * @param replayed whether the response carries {@code Idempotent-Replayed: true}: it is the recorded
 *     response of an earlier request with the same key, and nothing ran this time
 * @param body the order id, or the error message
 */
public record HttpResponse(int status, boolean replayed, String body) {

  /** The header that marks a replayed response. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** Status and replay marker, as in {@code "201"} or {@code "201 replayed"}. */
  public String summary() {
    return replayed ? status + " replayed" : Integer.toString(status);
  }
}
