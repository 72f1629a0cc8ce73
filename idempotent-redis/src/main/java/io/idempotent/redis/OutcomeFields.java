package io.idempotent.redis;

import io.idempotent.internal.JsonText;
import io.idempotent.spi.StoredOutcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How an outcome is kept in the record's hash, by the same rules as the table store: {@code kind} is
 * {@code VALUE}, {@code NULL} or {@code FAILURE}; a value is the JSON of the method's declared return type
 * in {@code json}; a failure keeps its exception's class name in {@code failure_type} (at most
 * {@value #MAX_TYPE_LENGTH} characters) and its message in {@code failure_message} (at most
 * {@value #MAX_MESSAGE_LENGTH}; absent when the message was null), and its recorded state (fields, full
 * message, cause description), when there is one, in {@code json}. Redis is binary-safe, so text is kept
 * as it is, NUL included; a lone surrogate in the JSON is kept as its JSON escape, as the table store does.
 */
final class OutcomeFields {

  static final int MAX_MESSAGE_LENGTH = 4000;
  static final int MAX_TYPE_LENGTH = 1000;

  private OutcomeFields() {}

  /**
   * The field/value pairs of {@code outcome}, computed before anything is written: encoding a value may
   * throw {@link io.idempotent.IdempotencyResultException}, and then nothing must have been touched.
   */
  static List<byte[]> of(StoredOutcome outcome) {
    List<byte[]> pairs = new ArrayList<>(6);
    pairs.add(utf8("kind"));
    pairs.add(utf8(outcome.kind().name()));
    switch (outcome.kind()) {
      case VALUE -> {
        pairs.add(utf8("json"));
        // the default codec already spells lone surrogates as JSON escapes; another codec may not, and
        // UTF-8 would turn them into '?'
        pairs.add(utf8(JsonText.escapeLoneSurrogates(outcome.json())));
      }
      case NULL -> { }
      case FAILURE -> {
        pairs.add(utf8("failure_type"));
        pairs.add(utf8(bounded(outcome.failureType(), MAX_TYPE_LENGTH)));
        if (outcome.failureMessage() != null) {
          pairs.add(utf8("failure_message"));
          pairs.add(utf8(bounded(outcome.failureMessage(), MAX_MESSAGE_LENGTH)));
        }
        if (outcome.json() != null) {
          pairs.add(utf8("json"));
          pairs.add(utf8(outcome.json()));
        }
      }
    }
    return pairs;
  }

  /** The outcome read back; null fields are those the hash does not have. */
  static StoredOutcome read(String kind, String json, String failureType, String failureMessage) {
    if (kind == null) {
      throw new IllegalArgumentException("a completed record without an outcome kind");
    }
    return switch (StoredOutcome.Kind.valueOf(kind)) {
      case VALUE -> {
        if (json == null) {
          throw new IllegalArgumentException("a VALUE outcome without its JSON");
        }
        yield StoredOutcome.valueJson(json);
      }
      case NULL -> StoredOutcome.nullValue();
      case FAILURE -> {
        if (failureType == null) {
          throw new IllegalArgumentException("a FAILURE outcome without its type");
        }
        yield StoredOutcome.failure(failureType, failureMessage, json);
      }
    };
  }

  private static String bounded(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    return s.substring(0, Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
