package io.idempotent;

import java.time.Clock;
import java.util.concurrent.locks.LockSupport;

/** {@link TimeSource#system()}. */
enum SystemTimeSource implements TimeSource {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Clock clock() {
    return Clock.systemUTC();
  }

  @Override
  public void parkUntil(Object blocker, long deadline) {
    long nanos = deadline - System.nanoTime();
    if (nanos > 0) {
      LockSupport.parkNanos(blocker, nanos);
    }
  }

  @Override
  public String toString() {
    return "TimeSource.system()";
  }
}
