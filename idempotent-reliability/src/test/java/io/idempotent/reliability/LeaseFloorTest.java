package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.internal.DurationLimits;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The smallest lease allowed ({@link DurationLimits#MIN_LEASE}) holds on every store while the JVM is
 * starved of CPU: busy threads on every core and one that fills the heap with garbage, in the same process
 * as the renewer. Each call runs for many times its lease while a duplicate claims the key every few
 * milliseconds; a renewal that comes too late lets the duplicate take the key over and run (counted), and
 * the owner then loses its claim ({@code LEASE_LOST}, counted). The floor is chosen from the sweep of
 * {@link #sweep} (run with {@code -Didempotent.leaseSweep=true}; figures in docs/RELIABILITY.md).
 */
class LeaseFloorTest {

  private static final String NAME = "floor.settle";
  private static final Duration RUN_FOR = Duration.ofMillis(2_000);

  /** The outcome of some calls of one store and lease under load. */
  record Cell(int calls, int duplicateRuns, int leasesLost, long slowestRenewalGapMillis) {}

  static Cell measure(StoreKind kind, Duration lease, int calls) throws Exception {
    try (StoreKind.Opened opened = kind.open(); Load load = Load.start()) {
      EventCounter events = new EventCounter();
      AtomicLong lastRenewal = new AtomicLong(System.nanoTime());
      AtomicLong widestGap = new AtomicLong();
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
          .store(new io.idempotent.spi.ForwardingIdempotencyStore(opened.store()) {
            @Override
            public boolean renew(String key, String owner, Duration l) {
              long now = System.nanoTime();
              widestGap.accumulateAndGet(now - lastRenewal.getAndSet(now), Math::max);
              return super.renew(key, owner, l);
            }
          })
          .defaultLease(lease).listener(events).build());
      AtomicInteger duplicateRuns = new AtomicInteger();
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        for (int i = 0; i < calls; i++) {
          String key = Calls.newRun() + ":" + i;
          AtomicBoolean running = new AtomicBoolean(true);
          java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
          Future<String> owner = threads.submit(() -> idempotency.call(NAME, String.class).key(key).run(() -> {
            lastRenewal.set(System.nanoTime());
            started.countDown();
            Thread.sleep(RUN_FOR.toMillis());
            return "settled";
          }));
          Future<?> duplicate = threads.submit(() -> {
            started.await(30, TimeUnit.SECONDS); // the owner holds the key first
            while (running.get()) {
              try {
                idempotency.call(NAME, String.class).key(key).run(() -> "again-" + duplicateRuns.incrementAndGet());
              } catch (IdempotencyInProgressException expected) {
                // the owner still holds the key
              }
              Thread.sleep(5);
            }
            return null;
          });
          owner.get(60, TimeUnit.SECONDS);
          running.set(false);
          duplicate.get(60, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
      return new Cell(calls, duplicateRuns.get(), (int) events.count(IdempotencyEvent.Type.LEASE_LOST),
          Duration.ofNanos(widestGap.get()).toMillis());
    }
  }

  static Stream<StoreKind> stores() {
    return Stream.of(StoreKind.CAFFEINE, StoreKind.JDBI_H2, StoreKind.JDBI_POSTGRES, StoreKind.JDBI_MARIADB,
        StoreKind.REDIS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void smallestLease_holdsOnEveryStore_whileTheJvmIsStarvedOfCpu(StoreKind kind) throws Exception {
    LongTests.require();
    Cell cell = measure(kind, DurationLimits.MIN_LEASE, 3);
    Figures.of("LeaseFloorTest.floor[" + kind + "]")
        .set("threads", Load.busyThreads() + 3).set("keys", cell.calls()).set("duplicatesSent", cell.calls())
        .set("executions", cell.calls() + cell.duplicateRuns()).set("duplicated", cell.duplicateRuns())
        .set("leasesLost", cell.leasesLost()).set("leaseMillis", DurationLimits.MIN_LEASE.toMillis())
        .set("slowestRenewalGapMillis", cell.slowestRenewalGapMillis())
        .report();
    assertThat(cell.duplicateRuns()).as("a duplicate ran while the owner still ran").isZero();
    assertThat(cell.leasesLost()).as("an owner lost its lease").isZero();
  }

  /**
   * Every lease from 100 ms up, on every store: what chose the floor. {@code idempotent.leaseSweep.leases}
   * (milliseconds, comma-separated) and {@code .stores} (kinds) narrow it, {@code .calls} sets the calls per cell.
   */
  static Stream<Arguments> sweep() {
    String leases = System.getProperty("idempotent.leaseSweep.leases", "100,250,500,1000,2000");
    String kinds = System.getProperty("idempotent.leaseSweep.stores", "");
    return stores().filter(k -> kinds.isEmpty() || List.of(kinds.split(",")).contains(k.name()))
        .flatMap(kind -> Stream.of(leases.split(","))
            .map(ms -> Arguments.of(kind, Duration.ofMillis(Long.parseLong(ms.trim())))));
  }

  @ParameterizedTest(name = "{0} lease {1}")
  @MethodSource("sweep")
  void sweep(StoreKind kind, Duration lease) throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("idempotent.leaseSweep"),
        "the sweep runs with -Didempotent.leaseSweep=true");
    Cell cell = measure(kind, lease, Integer.getInteger("idempotent.leaseSweep.calls", 5));
    Figures.of("LeaseFloorTest.sweep[" + kind + "," + lease.toMillis() + "ms]")
        .set("threads", Load.busyThreads() + 3).set("keys", cell.calls()).set("duplicatesSent", cell.calls())
        .set("executions", cell.calls() + cell.duplicateRuns()).set("duplicated", cell.duplicateRuns())
        .set("leasesLost", cell.leasesLost()).set("leaseMillis", lease.toMillis())
        .set("slowestRenewalGapMillis", cell.slowestRenewalGapMillis())
        .report();
  }

  /** Busy threads on every core (two per core) and a thread that keeps the collector busy. */
  static final class Load implements AutoCloseable {
    private final AtomicBoolean on = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    static volatile Object sink;

    static int busyThreads() {
      return 2 * Runtime.getRuntime().availableProcessors();
    }

    static Load start() {
      Load load = new Load();
      for (int i = 0; i < busyThreads(); i++) {
        load.add(() -> {
          long x = 0;
          while (load.on.get()) {
            x += System.nanoTime() % 7;
          }
          sink = x;
        });
      }
      load.add(() -> {
        List<byte[]> kept = new ArrayList<>();
        while (load.on.get()) {
          kept.add(new byte[256 * 1024]);
          if (kept.size() > 200) {
            kept.subList(0, 150).clear(); // survivors to promote, garbage to collect
          }
        }
        sink = kept;
      });
      return load;
    }

    private void add(Runnable work) {
      Thread t = new Thread(work, "lease-floor-load");
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }

    @Override
    public void close() throws InterruptedException {
      on.set(false);
      for (Thread t : threads) {
        t.join(5_000);
      }
    }
  }
}
