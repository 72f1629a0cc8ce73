package io.idempotent;

import org.jspecify.annotations.Nullable;

/** The annotation, an expression, a property or the configuration is invalid. */
public final class IdempotencyConfigurationException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyConfigurationException(String message) {
    super(message);
  }

  public IdempotencyConfigurationException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
