package io.idempotent.assemblies;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The cell being walked, as the fixtures see it: its key, the counters of what ran, and when the method or
 * the caller fails. One at a time (the woven aspect has one installed configuration per JVM).
 */
final class CellRun {

  private static final AtomicInteger NUMBERS = new AtomicInteger();
  /** The settlement periods of the scheduled job: one hour per cell from here. */
  private static final Instant FIRST_PERIOD = Instant.parse("2040-01-01T00:00:00Z");
  private static volatile CellRun current;

  final Cell cell;
  final Expected expected;
  final Deployment deployment;
  /** The key of the outer call; the scheduled job's period. */
  final String key;
  /** The instant the scheduled job's clock tells during this cell. */
  final Instant now;
  private final Map<String, AtomicInteger> entered = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> external = new ConcurrentHashMap<>();
  private final AtomicBoolean methodFailed = new AtomicBoolean();
  private final AtomicBoolean callerFailed = new AtomicBoolean();
  /** Under {@link Event#CONCURRENT_DUPLICATES}: counted down by each caller as it makes its first attempt. */
  private volatile CountDownLatch duplicatesStarted = new CountDownLatch(0);
  /** What the servlet threw to the container (answered 500). */
  final Queue<Throwable> serverErrors = new ConcurrentLinkedQueue<>();
  /** How often the servlet handled each request, by the request's id. */
  final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
  /** The requests the filter answered with a replay, by id. */
  final java.util.Set<String> replayedRequests = ConcurrentHashMap.newKeySet();

  private CellRun(Cell cell, Deployment deployment) {
    this.cell = cell;
    this.expected = Expected.of(cell);
    this.deployment = deployment;
    int number = NUMBERS.incrementAndGet();
    this.now = FIRST_PERIOD.plus(Duration.ofHours(number));
    this.key = cell.entryPoint() == EntryPoint.SCHEDULED_JOB ? SettlementJob.period(now) : "k" + number;
  }

  static CellRun begin(Cell cell, Deployment deployment) {
    CellRun run = new CellRun(cell, deployment);
    CellStore.use(deployment.instance(0).storeFor(cell.context()));
    current = run;
    return run;
  }

  static CellRun current() {
    CellRun run = current;
    if (run == null) {
      throw new IllegalStateException("no cell is being walked");
    }
    return run;
  }

  static void end() {
    current = null;
  }

  /** The key of the innermost call: the nested one's, or the only one. */
  String innermostKey() {
    return cell.context().nested() ? innerKey(key) : key;
  }

  static String innerKey(String outer) {
    return outer + "/inner";
  }

  /** Every key the cell's calls use. */
  List<String> keys() {
    return cell.context().nested() ? List.of(key, innerKey(key)) : List.of(key);
  }

  /** Notes that the method body began for {@code k}; returns which run of it this is. */
  int entered(String k) {
    return entered.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
  }

  int bodiesEntered(String k) {
    AtomicInteger n = entered.get(k);
    return n == null ? 0 : n.get();
  }

  /** Whether the method fails now: under {@link Event#THROWS}, the innermost method, on its first run only. */
  boolean methodFailsNow(String k) {
    return cell.event() == Event.THROWS && k.equals(innermostKey()) && methodFailed.compareAndSet(false, true);
  }

  /** Whether the caller fails now, after its call returned: under {@link Event#ROLLBACK_AFTER_RETURN}, once. */
  boolean callerFailsNow() {
    return cell.event() == Event.ROLLBACK_AFTER_RETURN && callerFailed.compareAndSet(false, true);
  }

  /** An effect outside every transaction (an external API): it happened, whatever rolls back later. */
  void externalEffect(String k) {
    external.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
  }

  int externalEffects(String k) {
    AtomicInteger n = external.get(k);
    return n == null ? 0 : n.get();
  }

  /** Effects of {@code k} that are there for good: committed ledger rows and external effects. */
  int committedEffects(String k) {
    return deployment.ledgerRows(k) + externalEffects(k);
  }

  Duration methodPause() {
    return cell.setting().methodPause(cell.database());
  }

  /** {@code callers} are about to send the same key at once. */
  void duplicates(int callers) {
    duplicatesStarted = new CountDownLatch(callers);
  }

  /** A caller of {@link #duplicates} makes its first attempt. */
  void duplicateStarted() {
    duplicatesStarted.countDown();
  }

  /**
   * Holds the method that runs until the other callers have made their attempts, and a little longer, so
   * that they meet its claim in progress: without it a fast method is often done before they arrive.
   */
  void meetTheDuplicates() throws InterruptedException {
    if (cell.event() == Event.CONCURRENT_DUPLICATES) {
      duplicatesStarted.await(1, TimeUnit.SECONDS);
      Thread.sleep(5);
    }
  }
}
