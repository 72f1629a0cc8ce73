package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

/**
 * What keeping a result costs a replay on the Caffeine store, through the programmatic call: a record
 * (whose values cannot change, kept by reference) against a plain mutable class with the same fields
 * (kept as JSON and decoded for each replay, so that a caller's change never reaches a later replay).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class ResultKeepingBenchmark {

  /** The kind of result the method returns. */
  public enum Result {
    record, mutable
  }

  /** The mutable result: private fields, a no-arg constructor, getters and setters. */
  public static final class MutableReceipt {
    private String orderId;
    private long cents;
    private String status;

    public MutableReceipt() {}

    MutableReceipt(String orderId, long cents, String status) {
      this.orderId = orderId;
      this.cents = cents;
      this.status = status;
    }

    public String getOrderId() {
      return orderId;
    }

    public void setOrderId(String orderId) {
      this.orderId = orderId;
    }

    public long getCents() {
      return cents;
    }

    public void setCents(long cents) {
      this.cents = cents;
    }

    public String getStatus() {
      return status;
    }

    public void setStatus(String status) {
      this.status = status;
    }
  }

  @Param
  public Result result;

  private final Keys keys = new Keys();
  private final AtomicLong executions = new AtomicLong();
  private Idempotency idempotency;
  private long executionsAfterSetup;

  @Setup
  public void setUp() {
    idempotency = Idempotency.create(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build())
        .build());
    for (String key : keys.replayKeys()) {
      call(key);
    }
    executionsAfterSetup = executions.get();
  }

  private Object call(String orderId) {
    if (result == Result.record) {
      return idempotency.call("keeping.record", Receipt.class).key(orderId).run(() -> {
        executions.incrementAndGet();
        return Receipt.of(orderId, 1999);
      });
    }
    return idempotency.call("keeping.mutable", MutableReceipt.class).key(orderId).run(() -> {
      executions.incrementAndGet();
      return new MutableReceipt(orderId, 1999, "CHARGED");
    });
  }

  @TearDown
  public void tearDown() {
    if (executions.get() != executionsAfterSetup) {
      throw new IllegalStateException(result + ": a replay ran the method");
    }
  }

  @Benchmark
  public Object replay() {
    return call(keys.replay());
  }
}
