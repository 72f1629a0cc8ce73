package io.idempotent.jdbi;

import io.idempotent.spi.IdempotencyStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes expired records periodically, in bounded batches: every {@code interval} it calls
 * {@link IdempotencyStore#purgeExpired(int)} until a call deletes fewer than a batch. Each batch is one
 * short statement, so no lock is held for long. Expired records are ignored by every read whether or not
 * they were purged; purging only keeps the table small. Runs on one daemon thread.
 *
 * <pre>{@code
 * PurgeScheduler purging = PurgeScheduler.start(store, Duration.ofMinutes(10), 500);
 * ...
 * purging.close();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class PurgeScheduler implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger("io.idempotent.jdbi");
  /** Default records per statement. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  private final IdempotencyStore store;
  private final int batchSize;
  private final ScheduledExecutorService executor;
  private volatile boolean closed;

  private PurgeScheduler(IdempotencyStore store, Duration interval, int batchSize) {
    this.store = store;
    this.batchSize = batchSize;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "idempotent-purge");
      t.setDaemon(true);
      return t;
    });
    long millis = Math.max(1, interval.toMillis());
    // the task catches what a purge throws, so the schedule never ends with a failure to look at
    var unused = executor.scheduleWithFixedDelay(this::purgeNow, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Starts purging {@code store} every {@code interval}, {@code batchSize} records per statement; the
   * first run is one interval from now.
   */
  public static PurgeScheduler start(IdempotencyStore store, Duration interval, int batchSize) {
    Objects.requireNonNull(store, "store");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("The purge interval must be positive");
    }
    if (batchSize <= 0) {
      throw new IllegalArgumentException("The purge batch size must be positive");
    }
    return new PurgeScheduler(store, interval, batchSize);
  }

  /**
   * Purges now, on the calling thread, until a batch comes back short.
   *
   * @return how many records were deleted
   */
  public int purgeNow() {
    int total = 0;
    try {
      int n;
      do {
        n = store.purgeExpired(batchSize);
        total += n;
      } while (n >= batchSize && !closed && !Thread.currentThread().isInterrupted());
    } catch (RuntimeException e) {
      // the next run tries again; a scheduled task that throws would never run again
      LOG.log(Level.WARNING, "Purging expired idempotency records failed", e);
    }
    return total;
  }

  /** Stops purging; a batch in flight is interrupted between statements. */
  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
  }
}
