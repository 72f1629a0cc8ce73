package io.idempotent.testkit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A nanosecond clock that moves only when told, for stores that take their time from a ticker (a
 * {@code LongSupplier} of nanoseconds, like {@link System#nanoTime()}): pass it, or {@code ticker::read}, to
 * the store, and {@link #advance} it where a test lets time pass. It starts at one second. Thread-safe.
 */
public final class FakeTicker implements LongSupplier {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long getAsLong() {
    return nanos.get();
  }

  /** The current reading in nanoseconds. */
  public long read() {
    return nanos.get();
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
