package io.idempotent.spi;

import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * An optional capability of an {@link IdempotencyStore}: it can tell, without polling, when a record may
 * have changed. A duplicate that waits for a running call waits on the signal; with stores without it, or
 * when the signal is null, the engine polls {@link IdempotencyStore#find}.
 */
public interface ChangeSignals {

  /**
   * A stage that completes when the record for {@code key} may have changed (completed or released), or
   * null when this store cannot tell for that key.
   */
  @Nullable CompletionStage<?> changeSignal(String key);
}
