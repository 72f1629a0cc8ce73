package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * One process of the multi-process tests, started by a test with {@code ProcessBuilder} on the test's
 * class path. It installs its own configuration and pool, then either
 *
 * <ul>
 *   <li>{@code load}: sends every key {@code copies} times, shuffled, from {@code threads} threads,
 *       retrying a refused duplicate until it gets the result, and finally checks every result it saw
 *       against the ledger (in joined mode each call runs in a transaction of its own on the ledger's
 *       database); every result seen is written to {@code target/workers/<run>-w<worker>.results} as
 *       {@code key<TAB>result} lines, so that a test can compare the results callers were given with
 *       the ledger across processes; or
 *   <li>{@code hold}: completes {@code keys} keys, then holds {@code hold} claims mid-execution (the
 *       ledger row written in an open transaction) until the process is killed.
 * </ul>
 *
 * Progress goes to standard output as lines the test reads: {@code READY} (then a load waits for a
 * {@code GO} line on standard input, so that all processes start together), {@code HOLDING n}, and a
 * final {@code DONE name=value ...}. Exit code 0 on success, 3 past the deadline.
 */
public final class LoadWorker {

  private LoadWorker() {}

  public static void main(String[] args) throws Exception {
    WorkerOptions o = WorkerOptions.parse(args);
    long deadline = System.nanoTime() + o.deadline().toNanos();
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(o.deadline().toMillis());
        say("FAILED deadline of " + o.deadline() + " passed");
        Runtime.getRuntime().halt(3);
      } catch (InterruptedException e) {
        // finished in time
      }
    }, "deadline");
    watchdog.setDaemon(true);
    watchdog.start();

    try (HikariDataSource pool = pool(o)) {
      Jdbi jdbi = Jdbi.create(pool);
      JdbiIdempotencyStore table = JdbiIdempotencyStore.builder(jdbi)
          .table(o.table())
          .transactionMode(o.joined() ? TransactionMode.JOINED : TransactionMode.INDEPENDENT)
          .build();
      IdempotencyStore store = o.store().equals("layered")
          ? new LayeredIdempotencyStore(new CaffeineIdempotencyStore(), table)
          : table;
      EventCounter events = new EventCounter();
      Idempotency.install(IdempotencyConfig.builder()
          .store(store)
          .defaultLease(o.lease())
          .listener(events)
          .build());
      if (o.mode().equals("hold")) {
        hold(o, jdbi);
      } else {
        load(o, jdbi, events, deadline);
      }
    }
    watchdog.interrupt();
  }

  private static HikariDataSource pool(WorkerOptions o) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("worker-" + o.worker());
    hc.setJdbcUrl(o.url());
    hc.setUsername(o.user());
    hc.setPassword(o.password());
    // each thread needs one connection for its call (two in joined mode) and the renewer one
    hc.setMaximumPoolSize(Math.max(2, (o.joined() ? 2 : 1) * Math.max(o.threads(), o.hold()) + 1));
    hc.setMinimumIdle(1);
    return new HikariDataSource(hc);
  }

  private static void load(WorkerOptions o, Jdbi jdbi, EventCounter events, long deadline) throws Exception {
    Ledger ledger = new Ledger(o.ledger());
    LedgerService service = new LedgerService(jdbi, ledger, o.run(), "w" + o.worker(), LedgerService.AfterWrite.NOTHING);
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(sendOrder(o));
    Map<String, String> seen = new ConcurrentHashMap<>();
    AtomicLong calls = new AtomicLong();
    AtomicLong executed = new AtomicLong();
    AtomicLong replayed = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong storeErrors = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    AtomicLong mismatches = new AtomicLong();
    // all processes start sending together, so that duplicates of a key really arrive concurrently
    say("READY");
    String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (!"GO".equals(go)) {
      say("FAILED expected GO on standard input, got " + go);
      System.exit(2);
    }
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < o.threads(); t++) {
      Thread thread = new Thread(() -> {
        String key;
        while ((key = queue.poll()) != null) {
          calls.incrementAndGet();
          try {
            String k = key;
            String result = o.joined() ? jdbi.inTransaction(h -> service.record(k)) : service.record(key);
            (Idempotency.lastOutcome() == CallOutcome.EXECUTED ? executed : replayed).incrementAndGet();
            String first = seen.putIfAbsent(key, result);
            if (first != null && !first.equals(result)) {
              mismatches.incrementAndGet();
            }
          } catch (IdempotencyInProgressException e) {
            refused.incrementAndGet(); // a duplicate while the first runs: come back to it later
            queue.add(key);
            pause();
          } catch (IdempotencyStoreException e) {
            storeErrors.incrementAndGet();
            queue.add(key);
            pause();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          } catch (RuntimeException e) {
            // the database went away (a transaction that could not commit, no connection): send it again
            failures.incrementAndGet();
            queue.add(key);
            pause();
          }
          if (System.nanoTime() - deadline > 0) {
            return;
          }
        }
      }, "t" + t);
      threads.add(thread);
      thread.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    // every result this worker saw must name the execution the ledger recorded for its key
    Map<String, String> executors = ledger.executors(jdbi, o.run());
    for (Map.Entry<String, String> e : seen.entrySet()) {
      if (!e.getValue().equals(executors.get(e.getKey()))) {
        mismatches.incrementAndGet();
      }
    }
    Path results = Path.of("target", "workers", o.run() + "-w" + o.worker() + ".results");
    Files.createDirectories(results.getParent());
    Files.write(results, seen.entrySet().stream().map(e -> e.getKey() + "\t" + e.getValue()).toList(),
        StandardCharsets.UTF_8);
    say("DONE worker=" + o.worker() + " calls=" + calls + " executed=" + executed + " replayed=" + replayed
        + " refused=" + refused + " storeErrors=" + storeErrors + " failures=" + failures
        + " mismatches=" + mismatches
        + " bodyExecutions=" + service.executions() + " keysSeen=" + seen.size() + " unsent=" + queue.size()
        + " millis=" + millis + " events=[" + events + "]");
  }

  /** Every key {@code copies} times, shuffled within windows of keys (or all at once). */
  static List<String> sendOrder(WorkerOptions o) {
    Random random = new Random(o.seed() * 1_000_003L + o.worker());
    int window = o.window() > 0 ? o.window() : o.keys();
    List<String> sends = new ArrayList<>(o.keys() * o.copies());
    for (int from = 0; from < o.keys(); from += window) {
      List<String> part = new ArrayList<>();
      for (int c = 0; c < o.copies(); c++) {
        for (int i = from; i < Math.min(o.keys(), from + window); i++) {
          part.add(o.key(i));
        }
      }
      Collections.shuffle(part, random);
      sends.addAll(part);
    }
    return sends;
  }

  private static void hold(WorkerOptions o, Jdbi jdbi) throws Exception {
    Ledger ledger = new Ledger(o.ledger());
    CountDownLatch reached = new CountDownLatch(o.hold());
    CountDownLatch never = new CountDownLatch(1);
    LedgerService service = new LedgerService(jdbi, ledger, o.run(), "w" + o.worker(), key -> {
      if (key.contains(":held:")) {
        reached.countDown();
        never.await(); // mid-execution, the ledger row written but not committed, until SIGKILL
      }
    });
    for (int i = 0; i < o.keys(); i++) {
      String key = o.key(i);
      if (o.joined()) {
        jdbi.useTransaction(h -> service.record(key));
      } else {
        service.record(key);
      }
    }
    say("COMPLETED " + o.keys());
    for (int i = 0; i < o.hold(); i++) {
      String key = o.heldKey(i);
      Thread t = new Thread(() -> {
        try {
          if (o.joined()) {
            jdbi.useTransaction(h -> service.record(key));
          } else {
            service.record(key);
          }
        } catch (Exception e) {
          say("ERROR " + e);
        }
      }, "hold" + i);
      t.setDaemon(true);
      t.start();
    }
    reached.await();
    say("HOLDING " + o.hold());
    never.await();
  }

  private static void pause() {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, 4));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
