package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.http.IdempotencyKeyHeader.Parsed;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The header's grammar, path patterns and the request fingerprint, without a server. */
class HttpKeyHeaderTest {

  private final IdempotencyKeyHeader header = new IdempotencyKeyHeader(40, false);

  @Test
  void anSfStringIsUnquotedAndUnescaped() {
    assertThat(header.parse("\"8e03978e-40d5-43e8-bc93-6894a57f9324\""))
        .isEqualTo(new Parsed.Key("8e03978e-40d5-43e8-bc93-6894a57f9324"));
    assertThat(header.parse("  \"a\\\"b\\\\c\"  ")).isEqualTo(new Parsed.Key("a\"b\\c"));
    assertThat(header.parse(List.of())).isEqualTo(new Parsed.Absent());
  }

  @Test
  void formatIsTheInverseOfParse() {
    String key = "order \"42\" \\ retry";
    assertThat(header.parse(IdempotencyKeyHeader.format(key))).isEqualTo(new Parsed.Key(key));
    assertThatThrownBy(() -> IdempotencyKeyHeader.format("line\nbreak")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theLengthLimitCountsTheKeyNotItsQuotesOrEscapes() {
    assertThat(header.parse("\"" + "k".repeat(40) + "\"")).isInstanceOf(Parsed.Key.class);
    assertThat(header.parse("\"" + "\\\\".repeat(40) + "\"")).isInstanceOf(Parsed.Key.class);
    assertThat(header.parse("\"" + "k".repeat(41) + "\"")).isInstanceOf(Parsed.Malformed.class);
    assertThat(header.parse("k".repeat(41))).isInstanceOf(Parsed.Malformed.class);
  }

  @Test
  void controlCharactersAndTabsAreRefused() {
    assertThat(header.parse("\"a\tb\"")).isInstanceOf(Parsed.Malformed.class);
    assertThat(header.parse("\"a\u0000b\"")).isInstanceOf(Parsed.Malformed.class);
    assertThat(header.parse("\"a\u007fb\"")).isInstanceOf(Parsed.Malformed.class);
  }

  @Test
  void pathPatternsMatchWholeSegments() {
    assertThat(PathPattern.of("/orders").matches("/orders")).isTrue();
    assertThat(PathPattern.of("/orders").matches("/orders/1")).isFalse();
    assertThat(PathPattern.of("/orders/*/refunds").matches("/orders/17/refunds")).isTrue();
    assertThat(PathPattern.of("/orders/*/refunds").matches("/orders//refunds")).isFalse();
    assertThat(PathPattern.of("/orders/*").matches("/orders-archive/1")).isFalse();
    assertThat(PathPattern.of("/api/**").matches("/api")).isTrue();
    assertThat(PathPattern.of("/api/**").matches("/api/v1/orders")).isTrue();
    assertThat(PathPattern.of("/api/**").matches("/apis")).isFalse();
    assertThat(PathPattern.of("/**").matches("/")).isTrue();
    assertThatThrownBy(() -> PathPattern.of("/a/**/b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PathPattern.of("/a*")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theFingerprintTellsEachPartApart() {
    byte[] body = "{\"qty\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String base = RequestFingerprint.of("POST", "/orders", null, "application/json", body);
    assertThat(RequestFingerprint.of("POST", "/orders", null, " Application/JSON ", body.clone())).isEqualTo(base);
    assertThat(RequestFingerprint.of("POST", "/orders", "", "application/json", body))
        .as("an empty query string (\"/orders?\") is none, as every server routes it").isEqualTo(base);
    assertThat(List.of(
        RequestFingerprint.of("PATCH", "/orders", null, "application/json", body),
        RequestFingerprint.of("POST", "/orders/", null, "application/json", body),
        RequestFingerprint.of("POST", "/orders", "a=1", "application/json", body),
        RequestFingerprint.of("POST", "/orders", null, null, body),
        RequestFingerprint.of("POST", "/orders", null, "application/json", new byte[0]),
        // the boundary between parts moves: still another fingerprint
        RequestFingerprint.of("POST", "/orders", "a", "=1application/json", body)))
        .doesNotContain(base).doesNotHaveDuplicates();
  }

  @Test
  void neverRecordedHeadersCannotBeConfigured() {
    for (String name : List.of("Set-Cookie", "content-length", "Transfer-Encoding", "Idempotent-Replayed")) {
      assertThatThrownBy(() -> HttpIdempotencySettings.builder().recordHeaders(name))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("never recorded");
    }
  }

  @Test
  void aRecordedHeaderValueLosesItsLineBreaksAsJettySendsIt() {
    // Jetty writes "Location: /orders/7  Set-Cookie: injected=1" for a value with CR LF: the record says the same
    assertThat(HeaderValues.sanitized("/orders/7\r\nSet-Cookie: injected=1")).isEqualTo("/orders/7  Set-Cookie: injected=1");
    assertThat(HeaderValues.sanitized("W/\"v1\"\tx\u0000")).isEqualTo("W/\"v1\"\tx ");
  }
}
