package io.idempotent.benchmarks;

import io.idempotent.Idempotency;
import io.idempotent.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.micrometer.MicrometerIdempotency;
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
 * meters in a {@link SimpleMeterRegistry}, the call timers alone (no store-operation timers), or the meters
 * and an {@link Observation} per call in a registry whose one handler does nothing (the observation
 * machinery itself, not a tracer's own cost).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class MicrometerBenchmark {

  /** What the configuration is instrumented with. */
  public enum Binder {
    none, meters,
    /** The call timers only, without the store-operation timers ({@code storeOperations(false)}). */
    callMeters,
    metersAndObservations
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
      case callMeters -> Idempotency.install(MicrometerIdempotency.builder().meterRegistry(meters)
          .storeOperations(false).build().instrument(config));
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
      Timer replays = meters.find(MicrometerIdempotency.CALLS).tag("outcome", replayRun ? "replayed" : "executed")
          .timer();
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
