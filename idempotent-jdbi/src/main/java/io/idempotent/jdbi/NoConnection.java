package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import org.jspecify.annotations.Nullable;

/** No connection came from the pool ({@link Connections}); {@link Reachability} takes it for unreachable. */
final class NoConnection extends IdempotencyStoreException {
  private static final long serialVersionUID = 1L;

  NoConnection(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
