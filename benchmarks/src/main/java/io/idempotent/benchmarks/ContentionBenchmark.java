package io.idempotent.benchmarks;

import io.idempotent.CallOutcome;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Scenario 5b, contention on PostgreSQL: each operation is one round in which 32 threads call a slow
 * method ({@value #BODY_MILLIS} ms) with the same fresh key at the same instant, with
 * {@code onInProgress = WAIT}. Exactly one may execute; the other 31 wait and get its result. The score
 * is the time until all 32 have their result; the counters give the waiting callers' mean latency and
 * the executions per round, which teardown holds to exactly one. {@code plain} is one direct call of
 * the method: the latency a waiter cannot beat. {@code layered} puts a near cache in front of the
 * table, so that waiters in this JVM are woken by the completion instead of polling the table.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
public class ContentionBenchmark {

  static final int CALLERS = 32;
  static final long BODY_MILLIS = 20;

  /** Who answers the callers. */
  public enum Store {
    plain, postgres, layered
  }

  /** Per-iteration sums, reported next to the score (JMH sums EVENTS counters over the iteration). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Waiters {
    public long waiterMicros;
    public long waiters;
    public long executions;
    public long rounds;

    @Setup(Level.Iteration)
    public void reset() {
      waiterMicros = 0;
      waiters = 0;
      executions = 0;
      rounds = 0;
    }
  }

  @Param
  public Store store;

  private final Orders orders = new Orders();
  private final Keys keys = new Keys();
  private SqlRig rig;
  private ExecutorService callers;
  private long rounds;
  private long badRounds;

  @Setup
  public void setUp() {
    rig = new SqlRig(BenchDatabase.postgres, 16);
    IdempotencyStore table = rig.storeBuilder().build();
    IdempotencyStore s = store == Store.layered
        ? new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), table)
        : table;
    Idempotency.install(IdempotencyConfig.builder().store(s).build());
    callers = Executors.newFixedThreadPool(CALLERS);
  }

  @TearDown
  public void tearDown() throws InterruptedException {
    try {
      System.out.printf("%n[contention] %s: %d rounds of %d callers, %d rounds without exactly one execution%n",
          store, rounds, CALLERS, badRounds);
      if (store != Store.plain && badRounds != 0) {
        throw new IllegalStateException(badRounds + " of " + rounds + " rounds did not execute exactly once");
      }
    } finally {
      callers.shutdownNow();
      callers.awaitTermination(10, TimeUnit.SECONDS);
      Idempotency.uninstall();
      rig.close();
    }
  }

  @Benchmark
  public Object round(Waiters w) throws Exception {
    String key = keys.fresh();
    if (store == Store.plain) {
      long t0 = System.nanoTime();
      Receipt r = orders.slowPlain(key, 1999, BODY_MILLIS);
      w.waiterMicros += (System.nanoTime() - t0) / 1_000;
      w.waiters++;
      w.executions++;
      w.rounds++;
      rounds++;
      return r;
    }
    long before = orders.executions.get();
    CountDownLatch start = new CountDownLatch(1);
    long[] t0 = new long[1];
    List<Future<long[]>> results = new ArrayList<>(CALLERS);
    for (int i = 0; i < CALLERS; i++) {
      results.add(callers.submit(() -> {
        start.await();
        orders.slow(key, 1999, BODY_MILLIS);
        boolean waited = Idempotency.lastOutcome() != CallOutcome.EXECUTED;
        return new long[] {System.nanoTime(), waited ? 1 : 0};
      }));
    }
    Thread.sleep(1); // let the callers reach the latch
    t0[0] = System.nanoTime();
    start.countDown();
    for (Future<long[]> f : results) {
      long[] r = f.get(60, TimeUnit.SECONDS);
      if (r[1] == 1) {
        w.waiterMicros += (r[0] - t0[0]) / 1_000;
        w.waiters++;
      }
    }
    long executed = orders.executions.get() - before;
    w.executions += executed;
    w.rounds++;
    rounds++;
    if (executed != 1) {
      badRounds++;
    }
    return executed;
  }
}
