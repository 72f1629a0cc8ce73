package io.idempotent.benchmarks;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.UUID;
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
import redis.clients.jedis.RedisClient;

/**
 * Redis: the woven {@code @Idempotent} call on the Redis store, the hand-written {@code SET NX} floor on
 * the same server, and a layered store with Caffeine in front of Redis, for a first call and a replay.
 * Needs Redis on 127.0.0.1:6379; uses database 15 and a prefix per run, deleted at teardown.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisBenchmark {

  /** The implementations compared. */
  public enum Impl {
    idempotent, handWrittenSetNx, layeredCaffeineOverRedis
  }

  @Param
  public Impl impl;

  private final Charges charges = new Charges();
  private final Keys keys = new Keys();
  private final String prefix = "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private RedisIdempotencyStore store;
  private HandWrittenRedis handWritten;
  private long executionsAfterSetup;

  @Setup
  public void setUp() throws Exception {
    store = RedisIdempotencyStore.builder().host("127.0.0.1").port(6379).database(15).prefix(prefix).build();
    handWritten = new HandWrittenRedis(redisOnDatabase15(), prefix + "hw:");
    if (impl != Impl.handWrittenSetNx) {
      Idempotency.install(IdempotencyConfig.builder()
          .store(impl == Impl.idempotent ? store
              : new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), store))
          .build());
    }
    for (String key : keys.replayKeys()) {
      call(key);
    }
    executionsAfterSetup = charges.executions.get();
  }

  private static RedisClient redisOnDatabase15() {
    return RedisClient.builder()
        .hostAndPort(new redis.clients.jedis.HostAndPort("127.0.0.1", 6379))
        .clientConfig(redis.clients.jedis.DefaultJedisClientConfig.builder().database(15).build())
        .build();
  }

  private Receipt call(String key) throws Exception {
    if (impl == Impl.handWrittenSetNx) {
      return handWritten.call(Charges.CHARGE, key, new Object[] {key, 1999L}, () -> charges.plain(key, 1999));
    }
    return charges.charge(key, 1999);
  }

  @TearDown
  public void tearDown() {
    if (charges.executions.get() < executionsAfterSetup) {
      throw new IllegalStateException("executions went backwards");
    }
    Idempotency.uninstall();
    store.close();
    try (RedisClient db15 = redisOnDatabase15()) {
      for (String k : db15.keys(prefix + "*")) {
        db15.del(k);
      }
    }
  }

  @Benchmark
  public Receipt firstCall() throws Exception {
    return call(keys.fresh());
  }

  @Benchmark
  public Receipt replay() throws Exception {
    long before = charges.executions.get();
    Receipt r = call(keys.replay());
    if (charges.executions.get() != before) {
      throw new IllegalStateException(impl + ": a replay ran the method");
    }
    return r;
  }
}
