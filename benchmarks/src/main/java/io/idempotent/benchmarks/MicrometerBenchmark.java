package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.micrometer.MicrometerIdempotency;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
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
 * What {@code idempotent-micrometer} adds to the woven {@code @Idempotent} call on the Caffeine store
 * ({@code Charges.charge}, as in {@link InMemoryBenchmark}), for a first call and a replay: no binder, the
 * meters in a {@link SimpleMeterRegistry} as the binder sets them up by default (the call timers; an
 * in-memory store's operations are not timed unless asked for), the meters with the store-operation
 * timers asked for, the meters and an {@link Observation} per call in a registry whose one handler does
 * nothing (the observation machinery itself, not a tracer's own cost), or, as the floor of any timer of
 * calls, a hand-written observer that times every call into one timer of the same registry.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
// as InMemoryBenchmark: a heap of fixed size, touched at start, and three forks, since one fork's error
// hides how far a ratio of two short calls moves from fork to fork
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class MicrometerBenchmark {

  /** What the configuration is instrumented with. */
  public enum Binder {
    none, meters,
    /** The meters and the store-operation timers ({@code storeOperations(true)}). */
    metersAndStoreOperations,
    metersAndObservations,
    /** The least a timer of calls does: two clock readings and one timer update per call, no tags. */
    handWrittenTimer
  }

  @Param
  public Binder binder;

  private final Charges charges = new Charges();
  private final Keys keys = new Keys();
  private SimpleMeterRegistry meters;
  private boolean replayRun;
  private long executionsAfterSetup;

  @Setup
  public void setUp(BenchmarkParams params) {
    IdempotencyConfig config = IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build();
    meters = new SimpleMeterRegistry();
    switch (binder) {
      case none -> Idempotency.install(config);
      case meters -> Idempotency.install(MicrometerIdempotency.instrument(config, meters));
      case metersAndStoreOperations -> Idempotency.install(MicrometerIdempotency.builder().meterRegistry(meters)
          .storeOperations(true).build().instrument(config));
      case handWrittenTimer -> {
        Timer calls = Timer.builder(MicrometerIdempotency.CALLS).register(meters);
        Idempotency.install(config.toBuilder().observer((name, store) -> {
          long start = System.nanoTime();
          return (outcome, error) -> calls.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }).build());
      }
      case metersAndObservations -> {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new IdleHandler());
        Idempotency.install(MicrometerIdempotency.instrument(config, meters, observations));
      }
    }
    for (String key : keys.replayKeys()) {
      charges.charge(key, 1999);
    }
    replayRun = params.getBenchmark().endsWith(".replay");
    executionsAfterSetup = charges.executions.get();
  }

  @TearDown
  public void tearDown() {
    if (replayRun && charges.executions.get() != executionsAfterSetup) {
      throw new IllegalStateException(binder + ": a replay ran the method");
    }
    if (binder != Binder.none) {
      Timer replays = binder == Binder.handWrittenTimer ? meters.find(MicrometerIdempotency.CALLS).timer()
          : meters.find(MicrometerIdempotency.CALLS).tag("outcome", replayRun ? "replayed" : "executed").timer();
      if (replays == null || replays.count() == 0) {
        throw new IllegalStateException(binder + ": the calls were not measured");
      }
    }
    Idempotency.uninstall();
  }

  @Benchmark
  public Receipt firstCall() {
    return charges.charge(keys.fresh(), 1999);
  }

  @Benchmark
  public Receipt replay() {
    return charges.charge(keys.replay(), 1999);
  }

  /** Takes every observation and does nothing with it, so that observations are made at all. */
  static final class IdleHandler implements ObservationHandler<Observation.Context> {
    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }
}
