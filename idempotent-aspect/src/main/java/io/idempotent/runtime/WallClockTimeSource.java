package io.idempotent.runtime;

import io.idempotent.TimeSource;
import java.time.Clock;

/** A time source with another wall clock: what {@link IdempotencyConfig.Builder#clock} configures. */
final class WallClockTimeSource implements TimeSource {

  private final TimeSource time;
  private final Clock clock;

  WallClockTimeSource(TimeSource time, Clock clock) {
    this.time = time;
    this.clock = clock;
  }

  @Override
  public long nanoTime() {
    return time.nanoTime();
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public void parkUntil(Object blocker, long deadline) {
    time.parkUntil(blocker, deadline);
  }

  @Override
  public String toString() {
    return time + " with the wall clock " + clock;
  }
}
