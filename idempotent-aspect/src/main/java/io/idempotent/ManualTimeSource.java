package io.idempotent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Time that moves only when a test {@linkplain #advance advances} it: for tests of the engine, of a store,
 * or of an application's own idempotent methods. It is a {@link TimeSource} for the
 * engine ({@code IdempotencyConfig.Builder.time(ticker)}) and for a layered store, and a
 * {@code LongSupplier} of nanoseconds for stores that take their time from a ticker (pass it, or
 * {@code ticker::read}, to the store), so that one test moves the time of all of them at once. The
 * nanosecond reading starts at one second; the wall clock at 2030-01-01T00:00:00Z and moves with it.
 *
 * <p>A thread that waits for a time — the lease renewer, a {@code WAIT} call — parks here until the
 * ticker reaches it: {@link #advance} unparks every such thread, and {@link #awaitParked} tells when a
 * thread has parked (again), so that a test knows a waiter is waiting, or has done what the new time
 * asked of it, without sleeping. Thread-safe.
 *
 * <pre>{@code
 * ManualTimeSource time = new ManualTimeSource();
 * Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
 *     .store(new MyStore(time)).time(time).build());
 * ...
 * time.awaitParked(waiter);          // the duplicate waits
 * time.advance(Duration.ofSeconds(11)); // past its wait timeout: it gives up
 * }</pre>
 */
public final class ManualTimeSource implements TimeSource, LongSupplier {

  private static final long START_NANOS = 1_000_000_000L;
  private static final Instant START_INSTANT = Instant.parse("2030-01-01T00:00:00Z");
  private static final long AWAIT_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final AtomicLong nanos = new AtomicLong(START_NANOS);
  private final Object lock = new Object();
  /** Threads parked in {@link #parkUntil}, with their deadlines. Guarded by {@link #lock}. */
  private final Map<Thread, Long> parked = new HashMap<>();
  private final Clock clock = new TickerClock(ZoneOffset.UTC);

  @Override
  public long getAsLong() {
    return nanos.get();
  }

  /** The current reading in nanoseconds. */
  public long read() {
    return nanos.get();
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  /** A wall clock that moves with this ticker. */
  @Override
  public Clock clock() {
    return clock;
  }

  /**
   * Moves the time forward by {@code d} and unparks every thread parked until a time now reached. Those
   * threads go on by themselves; {@link #awaitParked} tells when one has parked again.
   */
  public void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("time only moves forward: " + d);
    }
    long now = nanos.addAndGet(d.toNanos());
    synchronized (lock) {
      for (Iterator<Map.Entry<Thread, Long>> it = parked.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Thread, Long> e = it.next();
        if (e.getValue() - now <= 0) {
          it.remove(); // no longer parked as far as awaitParked is concerned, even before it runs
          LockSupport.unpark(e.getKey());
        }
      }
    }
  }

  /**
   * Parks until {@link #advance} reaches {@code deadline}, the thread is unparked or interrupted, or at
   * once if the deadline has passed.
   */
  @Override
  public void parkUntil(Object blocker, long deadline) {
    Thread self = Thread.currentThread();
    synchronized (lock) {
      // read under the lock: an advance either comes before this (and is seen here) or finds the entry
      if (deadline - nanos.get() <= 0) {
        return;
      }
      parked.put(self, deadline);
      lock.notifyAll();
    }
    try {
      LockSupport.park(blocker);
    } finally {
      synchronized (lock) {
        parked.remove(self);
      }
    }
  }

  /**
   * Waits until {@code thread} is parked on this ticker, waiting for a time it has not reached: true
   * then, false if the thread ended (or was never started) first. A thread {@link #advance} woke counts
   * again only once it has parked again, so this also tells when it has done what the new time asked of
   * it. Throws {@link IllegalStateException} after 30 seconds, so that a test fails instead of hanging.
   */
  public boolean awaitParked(Thread thread) throws InterruptedException {
    Objects.requireNonNull(thread, "thread");
    long giveUpAt = System.nanoTime() + AWAIT_LIMIT_NANOS;
    synchronized (lock) {
      while (!parked.containsKey(thread)) {
        if (!thread.isAlive()) {
          return false;
        }
        long left = giveUpAt - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(thread.getName() + " did not park on the ticker within 30 s; it is "
              + thread.getState());
        }
        lock.wait(10); // a park notifies; a thread's end does not, so look again now and then
      }
      return true;
    }
  }

  @Override
  public String toString() {
    return "ManualTimeSource at " + Duration.ofNanos(nanos.get() - START_NANOS) + " after its start";
  }

  /** The wall clock: the start instant plus the time advanced since. */
  private final class TickerClock extends Clock {
    private final ZoneId zone;

    TickerClock(ZoneId zone) {
      this.zone = zone;
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return new TickerClock(zone);
    }

    @Override
    public Instant instant() {
      return START_INSTANT.plusNanos(nanos.get() - START_NANOS);
    }
  }
}
