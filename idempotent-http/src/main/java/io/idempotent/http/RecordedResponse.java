package io.idempotent.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A response as it is kept for replay: its status, the representation headers the settings name (in the
 * order they were set, repeated names kept), and its body bytes. Nothing else of the response is kept:
 * no cookies, no header the client sent. Immutable (the body is copied in and out).
 *
 * @param status the HTTP status
 * @param headers the recorded headers
 * @param body the body as it was sent
 */
@SuppressWarnings("ArrayRecordComponent") // the bytes as sent; a response is replayed, never compared
public record RecordedResponse(int status, List<Header> headers, byte[] body) {

  /** One header line. */
  public record Header(String name, String value) {
    public Header {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
    }
  }

  public RecordedResponse {
    headers = List.copyOf(headers);
    body = body.clone();
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  /** The values recorded for {@code name}, compared ignoring case, in order. */
  public List<String> values(String name) {
    List<String> values = new ArrayList<>();
    for (Header h : headers) {
      if (h.name().equalsIgnoreCase(name)) {
        values.add(h.value());
      }
    }
    return values;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordedResponse r && status == r.status && headers.equals(r.headers)
        && Arrays.equals(body, r.body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, headers, Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return "RecordedResponse[status=" + status + ", headers=" + headers + ", body=" + body.length + " bytes]";
  }
}
