package io.idempotent.internal;

import io.idempotent.TimeSource;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Renews the leases of running calls, each at a third of its lease, so a long-running method keeps its
 * claim; and records the outcomes of calls whose completion the store failed, trying again until it
 * lands, the claim is lost or the call's maximum run time has passed (see {@link #recordLater}). One daemon thread keeps the time; the renewals themselves run on a lane per store (a daemon
 * thread that exists while the store has renewals to run), so a store that is slow or stuck — its pool
 * exhausted, its server unreachable — delays only its own renewals, never another store's. A renewal
 * still running is not submitted again. Registering costs one small object and a set insertion; calls
 * that finish within a third of their lease are never renewed. All of its time — due times, maximum run
 * times, idling, and the timekeeper's parking — comes from the engine's {@link TimeSource}, so a test
 * moving that source by hand drives it; only a lane's idle thread ends by the JDK's own timeout.
 * Thread-safe.
 */
final class LeaseRenewer {

  /** What the renewer has to report about the calls whose leases it keeps. */
  interface Listener {
    /** A renewal failed in the store; it is tried again sooner. */
    void renewalFailed(CallPlan plan, String key, RuntimeException error);

    /**
     * The store no longer holds the claim (another caller took it over after the lease ran out, or the
     * record is gone) when the renewer tried to {@code action}.
     */
    void leaseLost(CallPlan plan, IdempotencyStore store, String key, String action);

    /** The call ran past its maximum run time: its lease is no longer renewed. */
    void runTimeExceeded(CallPlan plan, String key, Duration maxRunTime);

    /** An outcome whose first recording failed has now been recorded. */
    void recordedLate(CallPlan plan, String key, LateRecording recording);

    /** An outcome whose first recording failed was still not recorded when the call's maximum run time passed. */
    void recordingAbandoned(CallPlan plan, String key, Duration maxRunTime);
  }

  /**
   * One more attempt to record a call's outcome, on a store lane: recorded ({@link #attempt} true) or lost
   * (fenced: another caller holds the key now); a store failure throws, and the attempt is repeated.
   */
  interface LateRecording {
    /** Whether the outcome is now recorded; false when the claim is no longer this owner's. */
    boolean attempt();

    /** Whether it is a final failure (rather than a value) that is being recorded. */
    boolean failure();
  }

  /** The first pause before an outcome is tried again, doubling up to {@link #MAX_RECORDING_PAUSE_NANOS}. */
  private static final long FIRST_RECORDING_PAUSE_NANOS = 50_000_000L;
  /**
   * At most this long between attempts: once the store answers again the outcome lands within it, while
   * the claim's lease (renewed until the outage began, so with two thirds of it left) still keeps a
   * retry from taking the key over.
   */
  private static final long MAX_RECORDING_PAUSE_NANOS = 500_000_000L;

  private static final long MAX_IDLE_NANOS = 1_000_000_000L;
  private static final long IDLE_EXIT_NANOS = 5_000_000_000L;

  private final long idleExitNanos;

  private final Listener listener;
  private final TimeSource time;
  private final Set<Renewal> active = ConcurrentHashMap.newKeySet();
  /**
   * The late recordings by store and key: a call of such a key is still in progress in this JVM, whatever
   * the store says of its lease (which a store that stayed unreachable may have let run out).
   */
  private final Map<StoredKey, Renewal> recordings = new ConcurrentHashMap<>();

  /** A key of one store (by identity). */
  private record StoredKey(IdempotencyStore store, String key) {
    @Override
    public boolean equals(Object o) {
      return o instanceof StoredKey k && k.store == store && k.key.equals(key);
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(store) * 31 + key.hashCode();
    }
  }
  /**
   * One lane per store, by identity; a lane's thread ends when it has been idle for a while, and the
   * lanes are dropped when the timekeeper goes idle. Changed only by the timekeeper's thread.
   */
  private final Map<IdempotencyStore, ExecutorService> lanes = new ConcurrentHashMap<>();
  private final AtomicInteger laneNumbers = new AtomicInteger();
  private volatile Thread thread;
  /**
   * When the timekeeper wakes up next; while it looks at the renewals, the latest it may choose, so that a
   * renewal registered meanwhile (which it may not see) and due before then wakes it.
   */
  private volatile long nextWake = Long.MAX_VALUE;

  LeaseRenewer(Listener listener, TimeSource time) {
    this(listener, time, IDLE_EXIT_NANOS);
  }

  LeaseRenewer(Listener listener, TimeSource time, long idleExitNanos) {
    this.listener = listener;
    this.time = time;
    this.idleExitNanos = idleExitNanos;
  }

  /** The renewal thread, or null while none runs. */
  Thread thread() {
    return thread;
  }

  /** Renews {@code key}'s lease until the renewal is cancelled, the claim is lost or {@code maxRunTime} passes. */
  Renewal register(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      Duration maxRunTime) {
    Renewal r = new Renewal(plan, store, key, claim, lease, maxRunTime);
    schedule(r);
    return r;
  }

  /**
   * Keeps trying to record the outcome of a call that finished while its store failed: at first after
   * 50 ms, then at pauses doubling up to half a second, until {@code recording} lands it or finds the
   * claim lost, or until the call has run for {@code maxRunTime}. While the store fails, the claim's
   * lease is renewed on its usual schedule whenever the store answers again (when {@code renewed} was
   * the call's renewal; null: leases are not renewed, and {@code maxRunTime} counts from now), so a
   * retry does not take the key over while its outcome is on its way.
   */
  void recordLater(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      Duration maxRunTime, Renewal renewed, LateRecording recording) {
    long now = time.nanoTime();
    long endsAt = renewed != null ? renewed.endsAt : now + Math.min(maxRunTime.toNanos(), Long.MAX_VALUE / 4);
    Renewal r = new Renewal(plan, store, key, claim, lease, maxRunTime, now, endsAt, renewed, recording);
    recordings.put(new StoredKey(store, key), r);
    schedule(r);
  }

  /** Whether an outcome of {@code key} waits here to be recorded in {@code store}. */
  boolean recording(IdempotencyStore store, String key) {
    return !recordings.isEmpty() && recordings.containsKey(new StoredKey(store, key));
  }

  /** Stops renewing {@code r}; a late recording's key is no longer in progress here. */
  private void retire(Renewal r) {
    active.remove(r);
    if (r.recording != null) {
      recordings.remove(new StoredKey(r.store, r.key), r);
    }
  }

  private void schedule(Renewal r) {
    active.add(r);
    Thread t = thread;
    if (t == null) {
      t = start();
    }
    if (r.due - nextWake < 0) {
      LockSupport.unpark(t);
    }
  }

  private synchronized Thread start() {
    if (thread == null) {
      Thread t = new Thread(this::loop, "idempotent-lease-renewer");
      t.setDaemon(true);
      thread = t;
      t.start();
    }
    return thread;
  }

  private void loop() {
    long idleSince = 0;
    while (true) {
      long now = time.nanoTime();
      if (active.isEmpty()) {
        if (idleSince == 0) {
          idleSince = now;
        } else if (now - idleSince > idleExitNanos && exitIfIdle()) {
          // nothing to renew for a while: let the JVM's thread go; register() starts a new one. A renewal
          // registered while this thread was exiting may have seen it still set: start one for it here
          if (!active.isEmpty()) {
            start();
          }
          return;
        }
      } else {
        idleSince = 0;
      }
      long wake = now + MAX_IDLE_NANOS;
      nextWake = wake;
      for (Renewal r : active) {
        if (r.inFlight) {
          continue; // its lane is still at it; it is rescheduled when done
        }
        if (r.due - now <= 0) {
          if (now - r.endsAt >= 0) {
            retire(r); // ran too long: let its lease run out
            if (r.recording != null) {
              listener.recordingAbandoned(r.plan, r.key, r.maxRunTime);
            } else if (!r.cancelled) {
              listener.runTimeExceeded(r.plan, r.key, r.maxRunTime);
            }
          } else {
            submit(r);
          }
          continue;
        }
        if (r.due - wake < 0) {
          wake = r.due;
        }
      }
      nextWake = wake;
      time.parkUntil(this, wake); // register() and the lanes unpark it when a renewal falls due sooner
      Thread.interrupted(); // not a shutdown signal for this daemon thread: keep serving
    }
  }

  /**
   * Ends the thread if no renewal was registered meanwhile. {@link #register} adds its renewal before it
   * reads {@link #thread}; one that read the old thread just before this cleared it is caught by the
   * loop's check of {@link #active} after this returns.
   */
  private synchronized boolean exitIfIdle() {
    if (!active.isEmpty()) {
      return false;
    }
    thread = null;
    // nothing is renewed now, so no lane has work to come: forget them, or every store ever renewed
    // would be kept here (a lane already running a task finishes it first)
    lanes.values().forEach(ExecutorService::shutdown);
    lanes.clear();
    return true;
  }

  /** How many stores have a lane now. */
  int laneCount() {
    return lanes.size();
  }

  private void submit(Renewal r) {
    r.inFlight = true;
    lanes.computeIfAbsent(r.store, s -> lane()).execute(() -> {
      try {
        if (r.cancelled) {
          return; // the call ended while this waited in its lane: its row may be locked by its completion
        }
        if (r.recording != null) {
          record(r, time.nanoTime());
        } else {
          renew(r, time.nanoTime());
        }
      } finally {
        r.inFlight = false;
        Thread t = thread;
        if (t != null) {
          LockSupport.unpark(t); // its next due time may come before the timekeeper's wake-up
        }
      }
    });
  }

  private ExecutorService lane() {
    String name = "idempotent-lease-renewer-lane-" + laneNumbers.incrementAndGet();
    return new ThreadPoolExecutor(0, 1, idleExitNanos, TimeUnit.NANOSECONDS,
        new LinkedBlockingQueue<>(), task -> {
          Thread t = new Thread(task, name);
          t.setDaemon(true);
          return t;
        });
  }

  private void renew(Renewal r, long now) {
    boolean renewed;
    try {
      renewed = r.claim.renew(r.lease);
    } catch (RuntimeException e) {
      listener.renewalFailed(r.plan, r.key, e);
      r.due = now + r.intervalNanos / 2; // try again sooner
      return;
    }
    if (renewed) {
      r.due = now + r.intervalNanos;
    } else {
      retire(r);
      if (!r.cancelled) {
        listener.leaseLost(r.plan, r.store, r.key, "renew its lease");
      }
    }
  }

  /**
   * One attempt to record a late outcome. While the store fails, the lease is renewed when it falls due,
   * so that it runs out only if the store stays silent; a renewal the store refuses means the claim is
   * lost, and so is the outcome.
   */
  private void record(Renewal r, long now) {
    boolean recorded;
    try {
      recorded = r.recording.attempt();
    } catch (RuntimeException e) {
      if (r.renewing && now - r.renewDue >= 0) {
        try {
          if (!r.claim.renew(r.lease)) {
            retire(r);
            listener.leaseLost(r.plan, r.store, r.key, "renew its lease while its outcome waited to be recorded");
            return;
          }
          r.renewDue = now + r.intervalNanos;
        } catch (RuntimeException stillFailing) {
          r.renewDue = now + r.intervalNanos / 2;
        }
      }
      r.pauseNanos = Math.min(r.pauseNanos * 2, MAX_RECORDING_PAUSE_NANOS);
      long next = now + r.pauseNanos;
      r.due = r.renewing && r.renewDue - next < 0 ? r.renewDue : next; // a short lease is not let run out
      return;
    }
    retire(r);
    if (recorded) {
      listener.recordedLate(r.plan, r.key, r.recording);
    } else {
      listener.leaseLost(r.plan, r.store, r.key, "record its outcome");
    }
  }

  /** When a lease falls due for renewal: at a third of its length. */
  private static long intervalOf(Duration lease) {
    return Math.max(1_000_000L, lease.toNanos() / 3);
  }

  /** One running call's lease, or the outcome of a finished call still to be recorded. */
  final class Renewal {
    final CallPlan plan;
    final IdempotencyStore store;
    final String key;
    /** The call's claim, which renews its lease and records its outcome. */
    final CallClaim claim;
    final Duration lease;
    final long intervalNanos;
    final Duration maxRunTime;
    /** When the call has run for its maximum run time: no renewal after it. */
    final long endsAt;
    volatile long due;
    volatile boolean cancelled;
    /** Submitted to its store's lane and not finished yet. */
    volatile boolean inFlight;
    /** The outcome to record, or null for a running call's renewal. */
    final LateRecording recording;
    /** While recording: whether the lease is renewed, when next, and the pause before the next attempt. */
    final boolean renewing;
    volatile long renewDue;
    volatile long pauseNanos;

    Renewal(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease, Duration maxRunTime) {
      this(plan, store, key, claim, lease, maxRunTime, time.nanoTime());
    }

    private Renewal(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
        Duration maxRunTime, long now) {
      this(plan, store, key, claim, lease, maxRunTime,
          now + Math.min(maxRunTime.toNanos(), Long.MAX_VALUE / 4), // at most 3650 days: no overflow
          now + intervalOf(lease), null, true, 0, 0);
    }

    /** A late recording: it ends when the call it records would have ({@code endsAt}). */
    private Renewal(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
        Duration maxRunTime, long now, long endsAt, Renewal renewed, LateRecording recording) {
      this(plan, store, key, claim, lease, maxRunTime, endsAt, now + FIRST_RECORDING_PAUSE_NANOS, recording,
          renewed != null, renewed != null ? renewed.due : now, FIRST_RECORDING_PAUSE_NANOS);
    }

    private Renewal(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
        Duration maxRunTime, long endsAt, long due, LateRecording recording, boolean renewing, long renewDue,
        long pauseNanos) {
      this.plan = plan;
      this.store = store;
      this.key = key;
      this.claim = claim;
      this.lease = lease;
      this.intervalNanos = intervalOf(lease);
      this.maxRunTime = maxRunTime;
      this.endsAt = endsAt;
      this.due = due;
      this.recording = recording;
      this.renewing = renewing;
      this.renewDue = renewDue;
      this.pauseNanos = pauseNanos;
    }

    void cancel() {
      cancelled = true;
      retire(this);
    }

    /**
     * The key's hash (which the store has computed already) rather than the identity hash, whose first
     * computation on a new object is a call into the VM on every registration. Equality stays identity.
     */
    @Override
    public int hashCode() {
      return key.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }
  }
}
