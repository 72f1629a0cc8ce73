package io.idempotent.examples;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyListener;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the library's events per namespace and type: the demo's account of calls that did not run
 * their method. Thread-safe; events arrive on the calling threads before the calls return.
 */
public final class OutcomeTally implements IdempotencyListener {

  /** Outcomes of a call that did not run the method: replayed, skipped, or refused. */
  public static final Set<IdempotencyEvent.Type> ABSORBED = EnumSet.of(
      IdempotencyEvent.Type.REPLAYED, IdempotencyEvent.Type.SKIPPED, IdempotencyEvent.Type.IN_PROGRESS,
      IdempotencyEvent.Type.KEY_REUSED, IdempotencyEvent.Type.KEY_MISSING);

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  @Override
  public void onEvent(IdempotencyEvent event) {
    counts.computeIfAbsent(id(event.name(), event.type()), k -> new LongAdder()).increment();
  }

  /** Events of {@code type} in namespace {@code name} so far. */
  public long count(String name, IdempotencyEvent.Type type) {
    LongAdder n = counts.get(id(name, type));
    return n == null ? 0 : n.sum();
  }

  /** The counts as they are now, to count what happens from here on. */
  public Mark mark() {
    Map<String, Long> now = new HashMap<>();
    counts.forEach((k, v) -> now.put(k, v.sum()));
    return new Mark(now);
  }

  private static String id(String name, IdempotencyEvent.Type type) {
    return name + '\n' + type;
  }

  /** The counts at one moment. Immutable. */
  public final class Mark {
    private final Map<String, Long> then;

    private Mark(Map<String, Long> then) {
      this.then = then;
    }

    /** Events of {@code type} in {@code name} since the mark. */
    public long since(String name, IdempotencyEvent.Type type) {
      return count(name, type) - then.getOrDefault(id(name, type), 0L);
    }

    /** Calls in {@code name} since the mark that did not run the method ({@link #ABSORBED}). */
    public long absorbedSince(String name) {
      return ABSORBED.stream().mapToLong(t -> since(name, t)).sum();
    }
  }
}
