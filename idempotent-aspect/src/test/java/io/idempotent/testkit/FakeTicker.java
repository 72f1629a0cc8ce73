package io.idempotent.testkit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A nanosecond clock that moves only when told. Thread-safe. */
public final class FakeTicker implements LongSupplier {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long getAsLong() {
    return nanos.get();
  }

  public long read() {
    return nanos.get();
  }

  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
