package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Retained heap per completed record (a small result, a {@link Receipt}): fills the Caffeine store
 * through the woven method, and the hand-written map the same way, with {@value #RECORDS} completed
 * calls each, and divides the growth of the heap after full collections by the number of records.
 * Prints JSON for {@link ResultsTable}. Run alone in its own JVM (the run script does).
 */
public final class RetainedHeap {

  static final int RECORDS = 50_000;
  private static final int ROUNDS = 3;

  private RetainedHeap() {}

  public static void main(String[] args) throws Exception {
    Charges charges = new Charges();
    double[] caffeine = new double[ROUNDS];
    double[] handWritten = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      int r = round;
      caffeine[round] = bytesPerRecord(() -> {
        CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().maximumCompleted(RECORDS * 2L).build();
        Idempotency.install(IdempotencyConfig.builder().store(store).build());
        for (int i = 0; i < RECORDS; i++) {
          charges.charge("c" + r + "-" + i, 1999);
        }
        Idempotency.uninstall();
        return store;
      });
      handWritten[round] = bytesPerRecord(() -> {
        InMemoryBenchmark.Caller memory = InMemoryBenchmark.caller(InMemoryBenchmark.Impl.handWritten, charges,
            RECORDS * 2L); // bounded as the Caffeine store above: every record is kept
        for (int i = 0; i < RECORDS; i++) {
          memory.call("h" + r + "-" + i, 1999);
        }
        return memory;
      });
    }
    System.out.printf(Locale.ROOT, "{\"records\": %d, \"caffeine\": %s, \"handWritten\": %s}%n",
        RECORDS, json(caffeine), json(handWritten));
  }

  private static String json(double[] values) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", values[i]));
    }
    return sb.append(']').toString();
  }

  private static double bytesPerRecord(Supplier<Object> fill) throws InterruptedException {
    long before = usedAfterGc();
    Object held = fill.get();
    long after = usedAfterGc();
    Reference.reachabilityFence(held);
    return (after - before) / (double) RECORDS;
  }

  private static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
