package io.idempotent.reliability;

import io.idempotent.IdempotencyInProgressException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/** Helpers to send calls from several threads, as concurrent duplicate requests arrive. */
final class Calls {

  private Calls() {}

  /** A fresh run id: letters and digits only, so it can prefix keys and LIKE patterns safely. */
  static String newRun() {
    return "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  /** What {@link #sendConcurrently} observed. */
  record Sent(long calls, long refusedInProgress, List<String> mismatches) {}

  /**
   * Sends calls {@code 0..count-1}, each {@code copies} times, shuffled, from {@code threads} threads.
   * A call refused because its duplicate is in progress is retried until it returns; {@code call}
   * returns null when the result is as expected, or a description of the mismatch.
   */
  static Sent sendConcurrently(int count, int copies, int threads, long seed, IntFunction<String> call)
      throws InterruptedException {
    List<Integer> sends = new ArrayList<>();
    for (int c = 0; c < copies; c++) {
      for (int i = 0; i < count; i++) {
        sends.add(i);
      }
    }
    Collections.shuffle(sends, new Random(seed));
    ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>(sends);
    AtomicLong calls = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        Integer i;
        while ((i = queue.poll()) != null) {
          calls.incrementAndGet();
          try {
            String problem = call.apply(i);
            if (problem != null) {
              mismatches.add(problem);
            }
          } catch (IdempotencyInProgressException e) {
            refused.incrementAndGet();
            queue.add(i);
            sleepQuietly(1);
          } catch (Throwable e) {
            failures.add(e);
            return;
          }
        }
      }, "sender-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join(TimeUnit.MINUTES.toMillis(2));
    }
    if (!failures.isEmpty()) {
      AssertionError e = new AssertionError("a call failed unexpectedly", failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    if (!queue.isEmpty()) {
      throw new AssertionError(queue.size() + " calls were never answered within 2 minutes");
    }
    return new Sent(calls.get(), refused.get(), List.copyOf(mismatches));
  }

  static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A string with control characters and non-ASCII shown as escapes, for failure messages. */
  static String printable(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder();
    int shown = Math.min(s.length(), 60);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return s.length() > shown ? sb + "…(" + s.length() + " chars)" : sb.toString();
  }
}
