package io.idempotent.redis;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;

/**
 * One application instance in a JVM of its own for {@link ClusterFailoverTest}: threads call keys 0..n-1
 * (each key once per instance, so every instance calls every key) through a store on the cluster, retrying a
 * call that fails until it runs or replays. Every execution appends its key to a file, so the test counts
 * executions per key across instances. Prints one line {@code keys failedAttempts millis takeovers storeErrors}
 * when done (takeovers: claims of a dead owner's expired lease; store errors: events, such as a completion
 * that could not be written).
 *
 * <p>Arguments: seeds (host:port,...), prefix, keys, threads, replicas to wait for, executions file. Once
 * connected it creates the executions file's name + {@code .ready}, and starts when a file {@code go} appears
 * beside it, so that all instances start together.
 */
public final class ClusterLoadWorker {

  private ClusterLoadWorker() {}

  public static void main(String[] args) throws Exception {
    List<HostAndPort> seeds = RedisStoreProvider.nodes(args[0]);
    String prefix = args[1];
    int keys = Integer.parseInt(args[2]);
    int threads = Integer.parseInt(args[3]);
    int replicas = Integer.parseInt(args[4]);
    Path executions = Path.of(args[5]);
    RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder().cluster(seeds).prefix(prefix).poolSize(threads)
        .timeout(Duration.ofSeconds(2));
    if (replicas > 0) {
      b.waitForReplicas(replicas, Duration.ofSeconds(1));
    }
    AtomicInteger next = new AtomicInteger();
    AtomicLong errors = new AtomicLong();
    AtomicLong takeovers = new AtomicLong();
    AtomicLong storeErrors = new AtomicLong();
    long start = System.nanoTime();
    try (RedisIdempotencyStore store = b.build();
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(executions))) {
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).listener(e -> {
            if (e.type() == IdempotencyEvent.Type.LEASE_TAKEN_OVER) {
              takeovers.incrementAndGet();
            } else if (e.type() == IdempotencyEvent.Type.STORE_ERROR) {
              storeErrors.incrementAndGet();
            }
          })
          .defaultLease(Duration.ofSeconds(10)).defaultWaitTimeout(Duration.ofSeconds(20)).build());
      store.ping(); // connected, slots read, settings checked: ready
      Files.createFile(Path.of(executions + ".ready"));
      Path go = executions.resolveSibling("go");
      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
      while (!Files.exists(go)) {
        if (System.nanoTime() > waitUntil) {
          throw new IllegalStateException("never told to start");
        }
        sleep(10);
      }
      start = System.nanoTime();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread worker = new Thread(() -> {
          for (int k = next.getAndIncrement(); k < keys; k = next.getAndIncrement()) {
            String key = "k" + k;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
              try {
                idempotency.call("failover", String.class).key(key).onInProgress(OnInProgress.WAIT).run(() -> {
                  synchronized (out) {
                    out.println(key);
                    out.flush();
                  }
                  sleep(2); // executions overlap the kill
                  return key;
                });
                break;
              } catch (IdempotencyException e) {
                errors.incrementAndGet();
                if (System.nanoTime() > deadline) {
                  throw new IllegalStateException("key " + key + " never went through", e);
                }
                sleep(50);
              }
            }
          }
        });
        worker.start();
        workers.add(worker);
      }
      for (Thread worker : workers) {
        worker.join();
      }
    }
    System.out.println(keys + " " + errors.get() + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " "
        + takeovers.get() + " " + storeErrors.get());
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Counts the lines of an executions file written so far. */
  static long lines(Path file) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    try (var lines = Files.lines(file)) {
      return lines.count();
    }
  }
}
