package io.idempotent.internal.config;

import io.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Reads the text of a setting — a property, a store setting, an annotation attribute — as a duration or a
 * boolean, the same way wherever it comes from. Blank text means "not set"; bad text is an
 * {@link IdempotencyConfigurationException} that names where the text came from and the text itself.
 */
public final class ConfigText {

  private ConfigText() {}

  /**
   * An ISO-8601 duration, or null when {@code text} is null or blank.
   *
   * @param source where the text came from, as the error message names it, e.g. {@code Property
   *     idempotent.ttl} or {@code @Idempotent(ttl) of com.shop.Payments.charge(String)}
   */
  public static Duration duration(String text, String source) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return Duration.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw invalid(source, text, "an ISO-8601 duration such as PT30S or PT24H");
    }
  }

  /** {@code true} or {@code false} in any case, or null when {@code text} is null or blank. */
  public static Boolean bool(String text, String source) {
    if (text == null || text.isBlank()) {
      return null;
    }
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> throw invalid(source, text, "true or false");
    };
  }

  /** The error for {@code text} read from {@code source} that is not what was {@code expected}. */
  public static IdempotencyConfigurationException invalid(String source, String text, String expected) {
    return new IdempotencyConfigurationException(source + " is '" + text + "'; expected " + expected);
  }
}
