package io.idempotent.examples.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Runs tasks on real threads released at the same moment, as a burst of duplicates arrives. */
final class Concurrently {

  private Concurrently() {}

  /** Runs {@code tasks.apply(i)} for i in [0, n) on n threads started together; returns results in order. */
  static <T> List<T> run(int n, IntFunction<Callable<T>> tasks) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<T> task = tasks.apply(i);
        futures.add(threads.submit(() -> {
          ready.countDown();
          go.await();
          return task.call();
        }));
      }
      ready.await();
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(2, TimeUnit.MINUTES));
      }
      return results;
    } finally {
      threads.shutdownNow();
    }
  }
}
