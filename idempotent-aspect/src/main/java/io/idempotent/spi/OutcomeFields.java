package io.idempotent.spi;

import io.idempotent.internal.text.JsonText;
import org.jspecify.annotations.Nullable;

/**
 * A completed outcome as four text fields, for stores that keep outcomes as text (table columns, hash
 * fields), so that every such store keeps and reads them by the same rules:
 *
 * <ul>
 *   <li>{@code kind}: {@code VALUE}, {@code NULL} or {@code FAILURE} ({@link StoredOutcome.Kind});
 *   <li>{@code json}: a value's JSON (as the method's declared return type), or a final failure's recorded
 *       state (its fields, full message and cause description), null when there is none. A lone UTF-16
 *       surrogate, which UTF-8 cannot carry, is spelled as its JSON escape, which reads back as the same
 *       character;
 *   <li>{@code failureType}, {@code failureMessage}: a final failure's class name (at most {@value
 *       #MAX_TYPE_LENGTH} characters) and message (at most {@value #MAX_MESSAGE_LENGTH}; null when the
 *       exception had none), with U+0000 and lone surrogates replaced by U+FFFD so that every database and
 *       driver keeps them as they are. They are for people reading the store: a replay reads the message
 *       from the recorded state.
 * </ul>
 *
 * {@link #of} computes the fields before anything is written: encoding a value may throw {@link
 * io.idempotent.IdempotencyResultException}, and then the store must not have touched the record.
 */
public record OutcomeFields(
    String kind, @Nullable String json, @Nullable String failureType, @Nullable String failureMessage) {

  /** Longest failure message kept; longer ones are cut (they are for people, and records should stay small). */
  public static final int MAX_MESSAGE_LENGTH = 4000;
  /** Longest failure type kept. */
  public static final int MAX_TYPE_LENGTH = 1000;

  /**
   * The fields of {@code outcome}.
   *
   * @throws io.idempotent.IdempotencyResultException if the outcome's value cannot be encoded
   */
  public static OutcomeFields of(StoredOutcome outcome) {
    String json = outcome.kind() == StoredOutcome.Kind.NULL ? null : outcome.json();
    String storedJson = json == null ? null : JsonText.escapeLoneSurrogates(json);
    return switch (outcome.kind()) {
      case VALUE -> new OutcomeFields("VALUE", storedJson, null, null);
      case NULL -> new OutcomeFields("NULL", null, null, null);
      case FAILURE -> new OutcomeFields("FAILURE", storedJson,
          text(outcome.failureType(), MAX_TYPE_LENGTH), text(outcome.failureMessage(), MAX_MESSAGE_LENGTH));
    };
  }

  /**
   * The outcome these fields hold.
   *
   * @throws IllegalArgumentException if they are not fields {@link #of} could have made (no kind, an
   *     unknown kind, a value without JSON, a failure without a type): something else wrote the record
   */
  public StoredOutcome toOutcome() {
    if (kind == null) {
      throw new IllegalArgumentException("a completed record without an outcome kind");
    }
    StoredOutcome.Kind k;
    try {
      k = StoredOutcome.Kind.valueOf(kind);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("an unknown outcome kind " + kind);
    }
    return switch (k) {
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

  /** {@code s} without U+0000 or lone surrogates, cut to {@code max} characters but never inside a pair. */
  private static @Nullable String text(@Nullable String s, int max) {
    if (s == null) {
      return null;
    }
    int end = s.length() <= max ? s.length() : Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
    StringBuilder sb = null;
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1));
      boolean bad = c == '\u0000' || (!pair && Character.isSurrogate(c));
      if (bad && sb == null) {
        sb = new StringBuilder(end).append(s, 0, i);
      }
      if (sb != null) {
        sb.append(bad ? '\uFFFD' : c);
        if (pair) {
          sb.append(s.charAt(i + 1));
        }
      }
      if (pair) {
        i++;
      }
    }
    return sb != null ? sb.toString() : end == s.length() ? s : s.substring(0, end);
  }
}
