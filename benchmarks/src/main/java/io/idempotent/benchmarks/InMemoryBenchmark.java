package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.internal.EngineSettings;
import io.idempotent.internal.IdempotencyEngine;
import io.idempotent.internal.MethodPlan;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Scenario 1, in memory: a plain call, the woven {@code @Idempotent} call on the Caffeine store (with
 * and without the argument fingerprint) and the hand-written equivalent, for a first call with a fresh
 * key and for a replay of a completed key.
 *
 * <p>Both stores are bounded at {@link #MAXIMUM_COMPLETED} completed records. A first call uses a key
 * never used before, so once the bound is reached (in the first warm-up iteration) every first call
 * adds one record and the bound evicts one: the number of records, and with it the live heap, stays
 * the same for the whole run, and a record lives for a few thousand calls, a few milliseconds, instead
 * of filling an ever larger map whose records live on into the old generation. What a first call
 * measures is therefore a claim of a new key, the method, the completion, and the eviction of one older
 * completed record, on a store of constant size. A replay cycles through {@link Keys#REPLAY_KEYS}
 * records completed in setup, fewer than the bound, so none is ever evicted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
// a heap of fixed size, touched at start: no resizing of the heap while an iteration runs; three forks,
// because what the JIT's escape analysis removes differs from fork to fork, and one fork's error hides it
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class InMemoryBenchmark {

  /** The bound on completed records of both stores, {@code maximumCompleted} on Caffeine. */
  static final int MAXIMUM_COMPLETED = 4 * Keys.REPLAY_KEYS;

  /** The implementations compared. */
  public enum Impl {
    plain, idempotent, idempotentNoFingerprint, handWritten, handWrittenNoFingerprint,
    /** Diagnostic: the engine path the aspect takes, called directly, without AspectJ's join point. */
    engineUnwoven,
    /** As {@link #engineUnwoven} with the argument fingerprint switched off. */
    engineUnwovenNoFingerprint
  }

  /** What one benchmarked call does. */
  interface Caller {
    Receipt call(String orderId, long cents);
  }

  @Param
  public Impl impl;

  private final Charges charges = new Charges();
  private final Keys keys = new Keys();
  private Caller caller;
  private boolean replayRun;
  private long executionsAfterSetup;

  @Setup
  public void setUp(BenchmarkParams params) {
    Idempotency.install(IdempotencyConfig.builder().store(
        CaffeineIdempotencyStore.builder().maximumCompleted(MAXIMUM_COMPLETED).build()).build());
    caller = caller(impl, charges);
    for (String key : keys.replayKeys()) {
      caller.call(key, 1999);
    }
    replayRun = params.getBenchmark().endsWith(".replay");
    executionsAfterSetup = charges.executions.get();
  }

  static Caller caller(Impl impl, Charges charges) {
    return caller(impl, charges, MAXIMUM_COMPLETED);
  }

  /**
   * The caller of {@code impl}; a hand-written one keeps at most {@code maximumCompleted} completed
   * entries (the woven and unwoven ones use the installed store, whatever its bound).
   */
  static Caller caller(Impl impl, Charges charges, long maximumCompleted) {
    return switch (impl) {
      case plain -> charges::plain;
      case idempotent -> charges::charge;
      case idempotentNoFingerprint -> charges::chargeUnchecked;
      case handWritten -> handWritten(charges, true, Charges.CHARGE, maximumCompleted);
      case handWrittenNoFingerprint -> handWritten(charges, false, Charges.CHARGE_UNCHECKED, maximumCompleted);
      case engineUnwoven -> unwoven(charges, "charge");
      case engineUnwovenNoFingerprint -> unwoven(charges, "chargeUnchecked");
    };
  }

  /**
   * What the aspect does once AspectJ has handed it the call: the plan compiled from the same
   * annotation, the arguments as an array, the method body as the invocation. The difference between
   * this and the woven call is what AspectJ's join point costs.
   */
  private static Caller unwoven(Charges charges, String annotatedMethod) {
    MethodPlan plan;
    try {
      plan = MethodPlan.compile(Charges.class.getMethod(annotatedMethod, String.class, long.class),
          new String[] {"orderId", "cents"});
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    // an engine on the installed configuration, as the aspect's
    IdempotencyConfig c = Idempotency.global().config();
    IdempotencyEngine engine = new IdempotencyEngine(new EngineSettings(c::store, c.defaultStoreName(),
        c.defaultTtl(), c.defaultLease(), c.defaultWaitTimeout(), c.time(), c.listener(), c.observer(), c.codec(),
        c.enabled(), c.missingKeyPolicy(), c.leaseRenewal()));
    return (orderId, cents) -> {
      try {
        return (Receipt) plan.execute(engine, new Object[] {orderId, cents},
            () -> charges.plain(orderId, cents));
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    };
  }

  private static Caller handWritten(Charges charges, boolean checkFingerprint, String name, long maximumCompleted) {
    HandWrittenMemory memory = new HandWrittenMemory(checkFingerprint, maximumCompleted);
    return (orderId, cents) -> memory.call(name, orderId, new Object[] {orderId, cents},
        () -> {
          charges.executions.incrementAndGet();
          return Receipt.of(orderId, cents);
        });
  }

  @TearDown
  public void tearDown() {
    if (replayRun && impl != Impl.plain && charges.executions.get() != executionsAfterSetup) {
      throw new IllegalStateException(impl + ": a replay ran the method");
    }
    Idempotency.uninstall();
  }

  @Benchmark
  public Receipt firstCall() {
    return caller.call(keys.fresh(), 1999);
  }

  @Benchmark
  public Receipt replay() {
    return caller.call(keys.replay(), 1999);
  }
}
