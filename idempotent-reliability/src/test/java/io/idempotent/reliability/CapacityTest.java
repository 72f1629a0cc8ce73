package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallResult;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.SqlDialect;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testservers.TestServers;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * What one PostgreSQL and one Redis sustain on this machine: first calls per second (claim and
 * completion of a fresh key) and replays per second (a completed key called again), from
 * {@value #THREADS} threads of one JVM for {@link #PHASE} each, through the engine with the real store;
 * the server's CPU time per call, bytes per record, and PostgreSQL's purge rate. On PostgreSQL three
 * layouts: the shipped table, the same table hash-partitioned on the key, and the layered store
 * (Caffeine near, the table far) in front of it. Each server is the
 * test's own (a scratch PostgreSQL with {@code fsync} and {@code synchronous_commit} on; a redis-server
 * without persistence), so its CPU time is its own work and nobody else's. Every figure is computed from
 * counters of the run. Long: only with {@code -Didempotent.longTests=true}.
 */
class CapacityTest {

  private static final int THREADS = 8;
  private static final Duration PHASE = Duration.ofSeconds(6);
  private static final int PURGE_BATCH = 1_000;
  /** A small result, as an order id and a status would be: 65 characters. */
  private static final String RESULT = "order-0000000000000000000000000000000000000000000000000:CONFIRMED";

  /** The counted result of one phase. */
  private record Phase(long calls, long executed, long replayed, long millis, long serverCpuMillis, long clientCpuMillis) {
    long perSecond() {
      return calls * 1000 / Math.max(1, millis);
    }

    /**
     * Calls per second of server CPU: what one core of the server sustains; "none" when the server
     * used no measurable CPU (the layered store's replays never reach it).
     */
    Object perServerCoreSecond() {
      return serverCpuMillis > 0 ? calls * 1000 / serverCpuMillis : "none";
    }

    long perClientCoreSecond() {
      return calls * 1000 / Math.max(1, clientCpuMillis);
    }
  }

  /** How the PostgreSQL measurement lays out its table and store. */
  enum Layout {
    /** The shipped DDL, the table store. */
    TABLE,
    /** The shipped DDL with {@code PARTITION BY HASH (idempotency_key)} and {@value #PARTITIONS} partitions. */
    HASH_PARTITIONED,
    /** The shipped DDL, the layered store (Caffeine near, the table far). */
    LAYERED
  }

  private static final int PARTITIONS = 8;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Layout.class)
  void postgresql(Layout layout) throws Exception {
    LongTests.require();
    try (ScratchPostgres pg = ScratchPostgres.start("max_connections=40");
        HikariDataSource pool = pool(pg.url())) {
      Jdbi jdbi = Jdbi.create(pool);
      if (layout == Layout.HASH_PARTITIONED) {
        createHashPartitioned(jdbi);
      }
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table("rel_capacity")
          .createSchema(layout != Layout.HASH_PARTITIONED).build();
      Idempotency idempotency = engine(layout == Layout.LAYERED
          ? new LayeredIdempotencyStore(new CaffeineIdempotencyStore(), store) : store);
      AtomicLongArray made = new AtomicLongArray(THREADS);
      LongSupplier serverCpu = () -> {
        try {
          return pg.cpuMillis();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      };
      Phase first = run(idempotency, made, true, serverCpu);
      Phase replays = run(idempotency, made, false, serverCpu);

      long records = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM rel_capacity").mapTo(Long.class).one());
      long totalBytes = jdbi.withHandle(h -> h.createQuery(
          "SELECT COALESCE((SELECT SUM(pg_total_relation_size(relid)) FROM pg_partition_tree('rel_capacity')),"
          + " pg_total_relation_size('rel_capacity'))::bigint")
          .mapTo(Long.class).one());
      long heapBytes = jdbi.withHandle(h -> h.createQuery(
          "SELECT COALESCE((SELECT SUM(pg_relation_size(relid)) FROM pg_partition_tree('rel_capacity')),"
          + " pg_relation_size('rel_capacity'))::bigint")
          .mapTo(Long.class).one());
      long rowBytes = jdbi.withHandle(h -> h.createQuery("SELECT AVG(pg_column_size(r.*))::bigint FROM rel_capacity r")
          .mapTo(Long.class).one());

      // purge: every record made expired, then deleted in batches as PurgeScheduler does
      jdbi.useHandle(h -> h.execute("UPDATE rel_capacity SET expires_at = statement_timestamp() - interval '1 second',"
          + " purge_after = statement_timestamp() - interval '1 second'"));
      long purgeStart = System.nanoTime();
      long purged = 0;
      int n;
      while ((n = store.purgeExpired(PURGE_BATCH)) > 0) {
        purged += n;
      }
      long purgeMillis = Math.max(1, (System.nanoTime() - purgeStart) / 1_000_000);

      report("PostgreSQL/" + layout, first, replays)
          .set("bytesPerRecord", totalBytes / records).set("heapBytesPerRecord", heapBytes / records)
          .set("rowBytes", rowBytes).set("purged", purged).set("purgeMillis", purgeMillis)
          .set("purgedPerSecond", purged * 1000 / purgeMillis).set("purgeBatch", PURGE_BATCH)
          .report();
      assertThat(records).isEqualTo(first.executed());
      assertThat(purged).isEqualTo(records);
    }
  }

  /** The shipped PostgreSQL DDL for {@code rel_capacity}, hash-partitioned on the key. */
  private static void createHashPartitioned(Jdbi jdbi) throws Exception {
    String ddl;
    try (var in = JdbiIdempotencyStore.class.getClassLoader().getResourceAsStream(SqlDialect.POSTGRESQL.schemaResource())) {
      ddl = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    String sql = ddl.lines().filter(l -> !l.startsWith("--")).collect(java.util.stream.Collectors.joining("\n"))
        .replace("idempotency_record", "rel_capacity");
    int endOfTable = sql.indexOf(';');
    assertThat(endOfTable).as("the shipped DDL starts with CREATE TABLE ( … ) …;").isPositive();
    String create = sql.substring(0, endOfTable);
    // storage parameters (the fillfactor) belong to the partitions, not to the partitioned table
    int with = create.lastIndexOf(") WITH (");
    String storage = with > 0 ? " " + create.substring(with + 2) : "";
    String partitioned = (with > 0 ? create.substring(0, with + 1) : create) + " PARTITION BY HASH (idempotency_key)"
        + sql.substring(endOfTable);
    jdbi.useHandle(h -> {
      for (String statement : partitioned.split(";")) {
        if (!statement.isBlank()) {
          h.execute(statement);
        }
      }
      for (int i = 0; i < PARTITIONS; i++) {
        h.execute("CREATE TABLE rel_capacity_p" + i + " PARTITION OF rel_capacity FOR VALUES WITH (MODULUS "
            + PARTITIONS + ", REMAINDER " + i + ")" + storage);
      }
    });
  }

  @Test
  void redis() throws Exception {
    LongTests.require();
    try (ScratchRedis redis = ScratchRedis.start();
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().host("127.0.0.1").port(redis.port)
            .poolSize(THREADS).build()) {
      Idempotency idempotency = engine(store);
      AtomicLongArray made = new AtomicLongArray(THREADS);
      long memoryBefore = redis.info("memory", "used_memory");
      Phase first = run(idempotency, made, true, redis::cpuMillis);
      long memoryAfter = redis.info("memory", "used_memory");
      Phase replays = run(idempotency, made, false, redis::cpuMillis);
      long records = redis.dbSize();
      report("Redis", first, replays)
          .set("bytesPerRecord", (memoryAfter - memoryBefore) / Math.max(1, records))
          .report();
      assertThat(records).as("one key per record, and the store's settings key").isEqualTo(first.executed() + 1);
    }
  }

  private static Figures report(String server, Phase first, Phase replays) {
    return Figures.of("CapacityTest[" + server + "]")
        .set("threads", THREADS).set("keys", first.executed()).set("duplicatesSent", replays.calls())
        .set("executions", first.executed() + replays.executed())
        .set("firstCallsPerSecond", first.perSecond()).set("replaysPerSecond", replays.perSecond())
        .set("firstCallsPerServerCoreSecond", first.perServerCoreSecond())
        .set("replaysPerServerCoreSecond", replays.perServerCoreSecond())
        .set("firstCallsPerClientCoreSecond", first.perClientCoreSecond())
        .set("replaysPerClientCoreSecond", replays.perClientCoreSecond())
        .set("firstCallServerCpuMillis", first.serverCpuMillis()).set("replayServerCpuMillis", replays.serverCpuMillis())
        .set("phaseMillis", first.millis());
  }

  private static Idempotency engine(IdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  /**
   * One phase: {@value #THREADS} threads call for {@link #PHASE}, fresh keys ({@code first}) or keys the
   * first phase completed, at random.
   */
  private static Phase run(Idempotency idempotency, AtomicLongArray made, boolean first, LongSupplier serverCpu)
      throws Exception {
    AtomicLong calls = new AtomicLong();
    AtomicLong executed = new AtomicLong();
    AtomicLong replayed = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long serverBefore = serverCpu.getAsLong();
    long clientBefore = clientCpuMillis();
    long start = System.nanoTime();
    long end = start + PHASE.toNanos();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      Thread th = new Thread(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.nanoTime() - end < 0) {
          String key;
          if (first) {
            key = "capacity:" + thread + ":" + made.getAndIncrement(thread);
          } else {
            int owner = random.nextInt(THREADS);
            key = "capacity:" + owner + ":" + random.nextLong(made.get(owner));
          }
          CallResult<String> r = idempotency.call("capacity", String.class).key(key).execute(() -> RESULT);
          calls.incrementAndGet();
          (r.replayed() ? replayed : executed).incrementAndGet();
        }
      }, "capacity-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    Phase phase = new Phase(calls.get(), executed.get(), replayed.get(), millis,
        serverCpu.getAsLong() - serverBefore, clientCpuMillis() - clientBefore);
    if (first) {
      assertThat(phase.executed()).as("first calls execute").isEqualTo(phase.calls());
    } else {
      assertThat(phase.replayed()).as("completed keys replay").isEqualTo(phase.calls());
    }
    return phase;
  }

  private static long clientCpuMillis() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime() / 1_000_000;
  }

  private static HikariDataSource pool(String url) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url);
    hc.setUsername("postgres");
    hc.setPassword("");
    hc.setMaximumPoolSize(THREADS + 2);
    hc.setPoolName("capacity");
    return new HikariDataSource(hc);
  }

  /** A redis-server of the test's own on a free port, without persistence. */
  private static final class ScratchRedis implements AutoCloseable {
    final int port;
    final Process process;
    final Path dir;

    private ScratchRedis(int port, Process process, Path dir) {
      this.port = port;
      this.process = process;
      this.dir = dir;
    }

    static ScratchRedis start() throws Exception {
      String binary = null;
      for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        if (new File(d, "redis-server").canExecute()) {
          binary = new File(d, "redis-server").getPath();
        }
      }
      if (binary == null) {
        TestServers.skipOrFail("redis-server is not on the PATH; the capacity test needs a Redis of its own.");
      }
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path dir = Files.createTempDirectory("capacity-redis");
      Process p = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no")
          .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
      ScratchRedis r = new ScratchRedis(port, p, dir);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
          j.ping();
          return r;
        } catch (RuntimeException e) {
          if (!p.isAlive() || System.nanoTime() - deadline > 0) {
            r.close();
            throw new IllegalStateException("redis-server did not start: " + Files.readString(dir.resolve("redis.log")), e);
          }
          Thread.sleep(20);
        }
      }
    }

    /** A numeric field of an {@code INFO} section. */
    long info(String section, String field) {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        return j.info(section).lines().filter(l -> l.startsWith(field + ":"))
            .map(l -> (long) Double.parseDouble(l.substring(field.length() + 1).trim())).findFirst().orElseThrow();
      }
    }

    /** The server's CPU time (user and system, main thread and children), in milliseconds. */
    long cpuMillis() {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        double seconds = j.info("cpu").lines().filter(l -> l.startsWith("used_cpu_sys:") || l.startsWith("used_cpu_user:"))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(':') + 1).trim())).sum();
        return (long) (seconds * 1000);
      }
    }

    long dbSize() {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        return j.dbSize();
      }
    }

    @Override
    public void close() throws Exception {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}
