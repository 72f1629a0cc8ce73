package io.idempotent.jdbi;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Bounds how long a thread waits for a pooled connection, whatever the pool's own timeout (HikariCP's is
 * 30 s by default, and the pool is often the application's): a thread that has waited past its deadline
 * is interrupted, which every pool answers by giving up the wait with an {@code SQLException}. The
 * interrupt is the deadline's own and is cleared again before the thread goes on; an interrupt the
 * thread had before it started waiting is kept.
 *
 * <p>Each thread has one slot, made on its first wait; a wait costs a clock reading, two volatile
 * writes and a compare-and-set. One daemon thread looks at the slots every {@value #TICK_MILLIS} ms; it
 * ends when it has seen no thread waiting for a while, and the next wait starts it again. Thread-safe.
 */
final class AcquisitionDeadlines {

  /** A wait for a connection. */
  @FunctionalInterface
  interface Wait<T, E extends Exception> {
    T get() throws E;
  }

  static final int TICK_MILLIS = 50;
  private static final long IDLE_EXIT_NANOS = 10_000_000_000L;

  private static final int IDLE = 0;
  private static final int WAITING = 1;
  private static final int INTERRUPTING = 2;
  private static final int INTERRUPTED = 3;

  /** One thread's wait: its state and, while it waits, its deadline. */
  private static final class Slot {
    final Thread thread = Thread.currentThread();
    final AtomicInteger state = new AtomicInteger(IDLE);
    volatile long deadline;
  }

  private static final ThreadLocal<Slot> SLOT = new ThreadLocal<>();
  private static final Set<Slot> SLOTS = ConcurrentHashMap.newKeySet();
  private static volatile @Nullable Thread watcher;

  private AcquisitionDeadlines() {}

  /**
   * Runs {@code wait} on the calling thread, interrupting it once {@code timeoutNanos} have passed.
   *
   * @return what {@code wait} returned
   * @throws TimedOut when the deadline interrupted the wait (the wait's own exception is its cause)
   */
  static <T, E extends Exception> T within(long timeoutNanos, Wait<T, E> wait) throws E, TimedOut {
    Slot slot = SLOT.get();
    if (slot == null) {
      slot = new Slot();
      SLOT.set(slot);
      SLOTS.add(slot);
    }
    slot.deadline = System.nanoTime() + timeoutNanos;
    slot.state.set(WAITING);
    if (watcher == null) { // read after the slot says it waits: see watch()
      startWatcher();
    }
    T result;
    try {
      result = wait.get();
    } catch (Exception e) {
      if (finish(slot)) {
        throw new TimedOut(e);
      }
      throw e;
    }
    finish(slot);
    return result;
  }

  /** Ends the slot's wait; true when the deadline interrupted it (its interrupt is then cleared). */
  private static boolean finish(Slot slot) {
    if (slot.state.compareAndSet(WAITING, IDLE)) {
      return false;
    }
    while (slot.state.get() != INTERRUPTED) {
      Thread.onSpinWait(); // the watcher is between its compare-and-set and its interrupt
    }
    Thread.interrupted();
    slot.state.set(IDLE);
    return true;
  }

  private static synchronized void startWatcher() {
    if (watcher == null) {
      Thread t = new Thread(AcquisitionDeadlines::watch, "idempotent-jdbi-connection-deadlines");
      t.setDaemon(true);
      watcher = t;
      t.start();
    }
  }

  private static void watch() {
    long idleSince = System.nanoTime();
    while (true) {
      LockSupport.parkNanos(TICK_MILLIS * 1_000_000L);
      long now = System.nanoTime();
      if (anyWaiting(now)) {
        idleSince = now;
      } else if (now - idleSince > IDLE_EXIT_NANOS) {
        watcher = null;
        // a wait that began before this write may have seen the watcher still set: it is seen here
        if (anyWaiting(now)) {
          startWatcher();
        }
        return;
      }
    }
  }

  /** Interrupts the waits past their deadline; whether any thread waits now. */
  @SuppressWarnings("ModifyCollectionInEnhancedForLoop") // a concurrent set: its iterator tolerates removal
  private static boolean anyWaiting(long now) {
    boolean waiting = false;
    for (Slot slot : SLOTS) {
      if (!slot.thread.isAlive()) {
        SLOTS.remove(slot);
      } else if (slot.state.get() == WAITING) {
        waiting = true;
        if (now - slot.deadline >= 0 && slot.state.compareAndSet(WAITING, INTERRUPTING)) {
          slot.thread.interrupt();
          slot.state.set(INTERRUPTED);
        }
      }
    }
    return waiting;
  }

  /** A wait the deadline ended. */
  static final class TimedOut extends Exception {
    private static final long serialVersionUID = 1L;

    TimedOut(Exception cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }
}
