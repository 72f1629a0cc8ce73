package io.idempotent;

import java.time.Clock;
import java.util.concurrent.locks.LockSupport;

/**
 * Where the engine takes its time from: one source for every duration it measures itself — the
 * deadline of a {@code WAIT}, the lease renewal schedule, the maximum run time — and for parking the
 * threads that wait for them. Configured once with {@link io.idempotent.runtime.IdempotencyConfig.Builder#time}; the default
 * is {@link #system()}. Stores keep time by their own authority (a database's clock, Redis key expiry, a
 * Caffeine {@code Ticker}); an in-memory store a test drives may be given the same source.
 *
 * <p>A test passes a source it moves by hand ({@link ManualTimeSource}) and lets
 * time pass without sleeping: moving it wakes the threads parked until a time it reached.
 *
 * <p>Implementations are thread-safe. {@link #nanoTime()} is read on the replay path of the layered
 * store, so it must neither allocate nor take a lock.
 */
public interface TimeSource {

  /**
   * The system's time: {@link System#nanoTime()}, {@link Clock#systemUTC()}, and
   * {@link java.util.concurrent.locks.LockSupport#parkNanos(Object, long)}.
   */
  static TimeSource system() {
    return SystemTimeSource.INSTANCE;
  }

  /**
   * A reading of a monotonic nanosecond counter, like {@link System#nanoTime()}: only the difference
   * between two readings means anything (compare them as {@code a - b < 0}, never {@code a < b}).
   */
  long nanoTime();

  /** The time of day, for what needs a date rather than a duration; the engine measures no duration on it. */
  Clock clock();

  /**
   * Parks the calling thread until {@link #nanoTime()} reaches {@code deadline}, or until the thread is
   * unparked ({@link java.util.concurrent.locks.LockSupport#unpark}, which an implementation must
   * honour), is interrupted, or returns for no reason — as {@code LockSupport.parkNanos} does. Callers
   * check the time and their condition again in a loop. Returns at once when the deadline has passed.
   *
   * @param blocker what the thread waits for, as thread dumps show it (see
   *     {@link java.util.concurrent.locks.LockSupport#park(Object)})
   * @param deadline a reading of {@link #nanoTime()}
   */
  void parkUntil(Object blocker, long deadline);
}

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
