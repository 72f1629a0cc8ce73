package io.idempotent.reliability;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyListener;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** Counts idempotency events by type. Thread-safe. */
public final class EventCounter implements IdempotencyListener {

  private final Map<IdempotencyEvent.Type, AtomicLong> counts = new EnumMap<>(IdempotencyEvent.Type.class);
  private final ThreadLocal<long[]> storeErrorsOnThread = ThreadLocal.withInitial(() -> new long[1]);

  public EventCounter() {
    for (IdempotencyEvent.Type t : IdempotencyEvent.Type.values()) {
      counts.put(t, new AtomicLong());
    }
  }

  @Override
  public void onEvent(IdempotencyEvent event) {
    counts.get(event.type()).incrementAndGet();
    if (event.type() == IdempotencyEvent.Type.STORE_ERROR) {
      storeErrorsOnThread.get()[0]++;
    }
  }

  /**
   * STORE_ERROR events emitted on the calling thread so far. The engine reports a completion it could
   * not write on the caller's thread, so a caller can tell whether its own call's outcome was recorded.
   */
  public long storeErrorsOnThisThread() {
    return storeErrorsOnThread.get()[0];
  }

  public long count(IdempotencyEvent.Type type) {
    return counts.get(type).get();
  }

  /** Non-zero counts as {@code type=n} pairs, for a report line. */
  @Override
  public String toString() {
    return counts.entrySet().stream()
        .filter(e -> e.getValue().get() > 0)
        .map(e -> e.getKey().name().toLowerCase(java.util.Locale.ROOT) + "=" + e.getValue().get())
        .collect(Collectors.joining(" "));
  }
}
