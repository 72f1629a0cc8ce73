package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.jdbi.TransactionMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many keys sent several times from several threads while the proxy in front of PostgreSQL keeps
 * changing faults (cut, refuse, delay, drop mid-statement). Callers retry what failed. Once the faults
 * stop, every key ends with exactly one recorded outcome that every later call replays. In joined mode
 * the ledger holds exactly one row per key; in independent mode each extra row is explained by a call
 * whose outcome the caller could not be sure was recorded (the body ran, then the call failed or
 * reported a store error): at least once, never silently.
 */
class FaultChaosTest {

  private static final String NAME = "chaos.ledger";
  private static final Ledger LEDGER = new Ledger("rel_ledger");
  private static final int KEYS = 240;
  private static final int COPIES = 3;
  private static final int THREADS = 4;
  private static final Duration CHAOS = Duration.ofSeconds(6);
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @ParameterizedTest
  @EnumSource(TransactionMode.class)
  void manyKeysUnderChangingFaults_endExactlyOnce_afterTheFaultsStop(TransactionMode mode) throws Exception {
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         AppInstance app = AppInstance.on(ProxiedPostgres.pool(proxy, 2 * THREADS + 2, "chaos-" + mode), mode,
             Duration.ofSeconds(2), true, UnaryOperator.identity())) {
      LEDGER.createTable(app.jdbi);
      String run = Calls.newRun();
      // the joined modes write the outcome in the caller's transaction, with the ledger row
      boolean joined = mode == TransactionMode.JOINED || mode == TransactionMode.JOINED_TRANSACTION_SCOPED;
      Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
      Map<String, AtomicInteger> unconfirmed = new ConcurrentHashMap<>();
      AtomicLong calls = new AtomicLong();
      AtomicLong failedCalls = new AtomicLong();
      ThreadLocal<boolean[]> ran = ThreadLocal.withInitial(() -> new boolean[1]);

      Caller caller = key -> {
        ran.get()[0] = false;
        long storeErrors = app.events.storeErrorsOnThisThread();
        try {
          CallResult<String> r;
          if (joined) {
            r = app.jdbi.inTransaction(h -> app.idempotency.call(NAME, String.class).key(key)
                .execute(() -> execute(key, run, executions, ran, e -> LEDGER.append(h, run, key, e))));
          } else {
            r = app.idempotency.call(NAME, String.class).key(key)
                .execute(() -> execute(key, run, executions, ran,
                    e -> app.jdbi.useHandle(h -> LEDGER.append(h, run, key, e))));
          }
          if (ran.get()[0] && app.events.storeErrorsOnThisThread() > storeErrors) {
            unconfirmed.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          }
          return r;
        } catch (Exception e) {
          if (ran.get()[0]) {
            unconfirmed.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          }
          throw e;
        }
      };

      List<String> sends = new ArrayList<>();
      for (int c = 0; c < COPIES; c++) {
        for (int i = 0; i < KEYS; i++) {
          sends.add(run + ":" + i);
        }
      }
      Collections.shuffle(sends, new Random(11));
      ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(sends);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        Thread th = new Thread(() -> {
          String key;
          while ((key = queue.poll()) != null && System.nanoTime() - deadline < 0) {
            calls.incrementAndGet();
            try {
              caller.call(key);
            } catch (Exception e) {
              failedCalls.incrementAndGet(); // refused, store down, connection lost: send it again later
              queue.add(key);
              Calls.sleepQuietly(20);
            }
          }
        }, "chaos-caller-" + t);
        threads.add(th);
        th.start();
      }
      long chaosStart = System.nanoTime();
      injectFaults(proxy, new Random(5), CHAOS, queue);
      long chaosMillis = (System.nanoTime() - chaosStart) / 1_000_000;
      proxy.pass();
      for (Thread th : threads) {
        th.join(DEADLINE.toMillis());
      }
      assertThat(queue).as("every send was answered within %s", DEADLINE).isEmpty();

      // every key ends with one recorded outcome: answer each until it returns, then each must replay
      for (int i = 0; i < KEYS; i++) {
        settle(caller, run + ":" + i, deadline);
      }
      Map<String, Integer> rows = LEDGER.rowsPerKey(app.jdbi, run);
      Map<String, String> executors = LEDGER.executors(app.jdbi, run);
      int duplicates = 0;
      for (int i = 0; i < KEYS; i++) {
        String key = run + ":" + i;
        CallResult<String> replay = caller.call(key);
        assertThat(replay.replayed()).as("%s replays", key).isTrue();
        assertThat(rows.getOrDefault(key, 0)).as("ledger rows of %s", key).isPositive();
        int extra = rows.get(key) - 1;
        duplicates += extra;
        if (joined) {
          assertThat(extra).as("database effects of %s in joined mode", key).isZero();
          assertThat(replay.value()).isEqualTo(executors.get(key));
        } else {
          int explained = unconfirmed.getOrDefault(key, new AtomicInteger()).get();
          assertThat(extra).as("extra effects of %s beyond its unconfirmed calls", key).isLessThanOrEqualTo(explained);
        }
      }
      assertThat(rows).as("no key is missing").hasSize(KEYS);

      int totalExecutions = executions.values().stream().mapToInt(AtomicInteger::get).sum();
      int totalUnconfirmed = unconfirmed.values().stream().mapToInt(AtomicInteger::get).sum();
      Figures.of("FaultChaosTest[" + mode + "]")
          .set("threads", THREADS).set("keys", KEYS).set("duplicatesSent", calls.get() - KEYS)
          .set("executions", totalExecutions).set("faults", proxy.faults())
          .set("cut", proxy.connectionsCut.get()).set("refused", proxy.connectionsRefused.get())
          .set("droppedMidStatement", proxy.connectionsDroppedMidStream.get()).set("delayed", proxy.delayPeriods.get())
          .set("failedCalls", failedCalls.get()).set("chaosMillis", chaosMillis).set("unconfirmedCalls", totalUnconfirmed)
          .set("lost", KEYS - rows.size())
          .set("duplicated", joined ? duplicates : 0)
          .set("reExecutedOutsideTheDatabase", joined ? 0 : duplicates)
          .report();
    }
  }

  @FunctionalInterface
  private interface Caller {
    CallResult<String> call(String key) throws Exception;
  }

  @FunctionalInterface
  private interface Effect {
    void write(String executor);
  }

  private static String execute(String key, String run, Map<String, AtomicInteger> executions,
      ThreadLocal<boolean[]> ran, Effect effect) {
    int n = executions.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    ran.get()[0] = true;
    String executor = Thread.currentThread().getName() + "#" + n;
    effect.write(executor);
    return executor;
  }

  private static void settle(Caller caller, String key, long deadline) throws InterruptedException {
    while (true) {
      try {
        caller.call(key);
        return;
      } catch (Exception e) {
        assertThat(System.nanoTime() - deadline).as("%s settles in time (%s)", key, e).isNegative();
        Thread.sleep(50);
      }
    }
  }

  /** Changes the proxy's behaviour every few hundred milliseconds for {@code length}, or until the traffic ends. */
  private static void injectFaults(FaultProxy proxy, Random random, Duration length, java.util.Queue<?> traffic)
      throws InterruptedException {
    long end = System.nanoTime() + length.toNanos();
    while (System.nanoTime() - end < 0 && !traffic.isEmpty()) {
      switch (random.nextInt(5)) {
        case 0 -> proxy.pass();
        case 1 -> proxy.delay(Duration.ofMillis(10 + random.nextInt(60)));
        case 2 -> proxy.cutAll();
        case 3 -> {
          proxy.refuseNew();
          proxy.cutAll();
        }
        default -> proxy.dropAfter(random.nextInt(400));
      }
      Thread.sleep(150 + random.nextInt(300));
      proxy.pass();
      Thread.sleep(50 + random.nextInt(150));
    }
  }
}
