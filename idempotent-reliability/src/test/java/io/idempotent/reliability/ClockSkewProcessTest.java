package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.testservers.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Clock skew for real: three JVMs share one store, one on true time and two under libfaketime, an hour
 * ahead and an hour behind (their {@code System.currentTimeMillis()} is checked to be shifted). Each of
 * the three holds a key mid-execution (lease {@value #LEASE_SECONDS} s) while the other two call it:
 * they must be refused, not take over. Each key then completes (TTL {@value #TTL_SECONDS} s) and every
 * JVM calls every key every {@value #ROUND_MILLIS} ms until a second before the TTL ends: each call must
 * replay the owner's result. A moment after the TTL, a JVM other than the owner calls it again and must
 * execute afresh (the record is gone, not stretched by anyone's clock). Last, all three send the same
 * {@value #BURST_KEYS} keys at once from several threads: each must execute exactly once.
 *
 * <p>The table store and the Redis store take every deadline from the server's clock, so skewed JVMs
 * change nothing. The same scenario runs on {@link JvmClockTableStore}, a store that computes deadlines
 * from the JVM clock: there it must find premature takeovers (so the test can tell). Long: only with
 * {@code -Didempotent.longTests=true}.
 */
class ClockSkewProcessTest {

  enum Kind {
    /** The table store on PostgreSQL. */
    JDBI_POSTGRES("jdbi"),
    /** The Redis store. */
    REDIS("redis"),
    /** The deliberately wrong store on PostgreSQL that reads the JVM's clock. */
    JVM_CLOCK_POSTGRES("jvmclock");

    final String store;

    Kind(String store) {
      this.store = store;
    }
  }

  private static final int LEASE_SECONDS = 4;
  private static final int TTL_SECONDS = 6;
  private static final long HOLD_MILLIS = 2_500;
  private static final long ROUND_MILLIS = 300;
  private static final int BURST_KEYS = 40;
  private static final int BURST_THREADS = 4;
  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final Duration REPLY = Duration.ofSeconds(30);

  /** One JVM of the test and the lines it printed that nobody has asked for yet. */
  private static final class Party implements AutoCloseable {
    final String name;
    final WorkerProcess process;
    final List<String> pending = new ArrayList<>();

    Party(String name, WorkerProcess process) {
      this.name = name;
      this.process = process;
    }

    String next(Predicate<String> wanted) throws InterruptedException {
      for (Iterator<String> it = pending.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (wanted.test(line)) {
          it.remove();
          return line;
        }
      }
      while (true) {
        String line = process.awaitLine("", REPLY);
        if (wanted.test(line)) {
          return line;
        }
        pending.add(line);
      }
    }

    /** Calls {@code key} once; the reply line. */
    String call(String key) throws Exception {
      process.send("CALL " + key);
      return next(l -> l.startsWith("RESULT " + key + " ") || l.equals("REFUSED " + key)
          || l.startsWith("ERROR " + key + " "));
    }

    @Override
    public void close() throws Exception {
      process.close();
    }
  }

  /** What the scenario counted. */
  private static final class Counts {
    long contended;
    long prematureTakeovers;
    long replays;
    long replayMisses;
    long expiryChecks;
    long overstays;
    long errors;
    long burstExecutions;
    long burstDivergent;
    long burstAnswered;
    /** Method bodies that ran, from the callers' replies. */
    long executions;

    long violations() {
      return prematureTakeovers + replayMisses + overstays + errors + (burstExecutions - BURST_KEYS) + burstDivergent
          + (BURST_KEYS - burstAnswered);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Kind.class)
  void jvmsAnHourAheadAndBehind_agreeOnLeasesAndTtls(Kind kind) throws Exception {
    LongTests.require();
    Map<String, String> ahead = Faketime.environment("+1h");
    Map<String, String> behind = Faketime.environment("-1h");
    String run = Calls.newRun();
    List<String> args = new ArrayList<>(List.of("--store=" + kind.store, "--lease=PT" + LEASE_SECONDS + "S",
        "--ttl=PT" + TTL_SECONDS + "S"));
    HikariDataSource pool = null;
    if (kind == Kind.REDIS) {
      TestServers.REDIS.requireReachable();
      args.addAll(List.of("--redisHost=" + TestServers.REDIS.host, "--redisPort=" + TestServers.REDIS.port,
          "--redisDatabase=" + TestServers.RedisServer.DATABASE, "--redisPrefix=reliability:skew:" + run + ":"));
    } else {
      Database db = Database.POSTGRES;
      db.requireReachable();
      pool = db.newPool(2, "skew-setup");
      Jdbi jdbi = Jdbi.create(pool);
      if (kind == Kind.JVM_CLOCK_POSTGRES) {
        new JvmClockTableStore(jdbi).createTable();
      } else {
        JdbiIdempotencyStore.builder(jdbi).table(Database.TABLE).createSchema(true).build();
      }
      args.addAll(List.of("--url=" + db.url, "--user=" + db.user, "--password=" + db.password,
          "--table=" + Database.TABLE));
    }
    List<Party> parties = new ArrayList<>();
    try {
      parties.add(start("true", args, Map.of(), run));
      parties.add(start("ahead", args, ahead, run));
      parties.add(start("behind", args, behind, run));
      Map<String, Long> shifts = new HashMap<>();
      for (Party p : parties) {
        long testNow = System.currentTimeMillis();
        String ready = p.next(l -> l.startsWith("READY "));
        shifts.put(p.name, Long.parseLong(ready.substring("READY clock=".length())) - testNow);
      }
      assertShifted(shifts.get("true"), 0, "true");
      assertShifted(shifts.get("ahead"), HOUR, "ahead");
      assertShifted(shifts.get("behind"), -HOUR, "behind");

      Counts counts = scenario(parties, run);

      Figures.of("ClockSkewProcessTest[" + kind + "]")
          .set("processes", parties.size() + 1).set("threads", BURST_THREADS).set("keys", parties.size() + BURST_KEYS)
          .set("duplicatesSent", counts.contended + counts.replays + counts.expiryChecks
              + (long) BURST_KEYS * (parties.size() - 1))
          .set("executions", counts.executions)
          .set("lost", BURST_KEYS - counts.burstAnswered)
          .set("duplicated", counts.prematureTakeovers + counts.replayMisses + counts.burstExecutions - BURST_KEYS)
          .set("aheadShiftMillis", shifts.get("ahead")).set("behindShiftMillis", shifts.get("behind"))
          .set("contendedCalls", counts.contended).set("prematureTakeovers", counts.prematureTakeovers)
          .set("replaysInTtl", counts.replays).set("replayMisses", counts.replayMisses)
          .set("expiryChecks", counts.expiryChecks).set("overstays", counts.overstays)
          .set("burstExecutions", counts.burstExecutions).set("burstDivergent", counts.burstDivergent)
          .set("errors", counts.errors)
          .report();

      if (kind == Kind.JVM_CLOCK_POSTGRES) {
        assertThat(counts.prematureTakeovers)
            .as("a store on the JVM clock lets a JVM an hour ahead take over a live lease").isPositive();
        assertThat(counts.violations()).isPositive();
      } else {
        assertThat(counts.errors).as("errors").isZero();
        assertThat(counts.prematureTakeovers).as("takeovers of a live lease").isZero();
        assertThat(counts.replayMisses).as("calls within the TTL that did not replay the owner's result").isZero();
        assertThat(counts.overstays).as("records replayed after their TTL").isZero();
        assertThat(counts.burstAnswered).as("burst keys answered").isEqualTo(BURST_KEYS);
        assertThat(counts.burstExecutions).as("burst executions").isEqualTo(BURST_KEYS);
        assertThat(counts.burstDivergent).as("burst keys given different results").isZero();
      }
    } finally {
      for (Party p : parties) {
        p.close();
      }
      if (pool != null) {
        pool.close();
      }
    }
  }

  private static Counts scenario(List<Party> parties, String run) throws Exception {
    Counts counts = new Counts();
    // each JVM holds a key of its own, mid-execution, well within its lease
    Map<Party, String> held = new HashMap<>();
    for (Party p : parties) {
      String key = run + ":held-by-" + p.name;
      held.put(p, key);
      p.process.send("HOLD " + key + " " + HOLD_MILLIS);
    }
    for (Party p : parties) {
      p.next(l -> l.equals("STARTED " + held.get(p)));
    }
    for (Party caller : parties) {
      for (Party owner : parties) {
        if (caller != owner) {
          String reply = caller.call(held.get(owner));
          counts.contended++;
          if (reply.contains(" EXECUTED ")) {
            counts.executions++;
            counts.prematureTakeovers++;
          } else if (reply.startsWith("ERROR")) {
            counts.errors++;
          }
        }
      }
    }
    // the owners complete: from then on every call within the TTL replays the owner's result
    Map<String, String> results = new HashMap<>();
    long firstCompleted = Long.MAX_VALUE;
    long lastCompleted = 0;
    for (Party p : parties) {
      String key = held.get(p);
      String done = p.next(l -> l.startsWith("RESULT " + key + " ") || l.startsWith("ERROR " + key + " "));
      long at = System.nanoTime();
      firstCompleted = Math.min(firstCompleted, at);
      lastCompleted = Math.max(lastCompleted, at);
      if (done.startsWith("ERROR")) {
        counts.errors++;
      } else {
        counts.executions++;
        results.put(key, done.split(" ", 4)[3]);
      }
    }
    long replayUntil = firstCompleted + Duration.ofSeconds(TTL_SECONDS - 1).toNanos();
    while (System.nanoTime() - replayUntil < 0) {
      for (Party caller : parties) {
        for (String key : held.values()) {
          String reply = caller.call(key);
          counts.replays++;
          if (!reply.equals("RESULT " + key + " REPLAYED " + results.get(key))) {
            counts.replayMisses++;
          }
          if (reply.contains(" EXECUTED ")) {
            counts.executions++;
          }
        }
      }
      Thread.sleep(ROUND_MILLIS);
    }
    // a moment after the TTL the record is gone for everyone: a JVM other than the owner runs it afresh
    long expired = lastCompleted + Duration.ofSeconds(TTL_SECONDS).toNanos() + Duration.ofMillis(1500).toNanos();
    Thread.sleep(Math.max(0, (expired - System.nanoTime()) / 1_000_000));
    for (int i = 0; i < parties.size(); i++) {
      Party caller = parties.get((i + 1) % parties.size());
      String reply = caller.call(held.get(parties.get(i)));
      counts.expiryChecks++;
      if (reply.contains(" REPLAYED ")) {
        counts.overstays++;
      } else if (reply.contains(" EXECUTED ")) {
        counts.executions++;
      } else {
        counts.errors++;
      }
    }
    // all three at once on the same keys
    for (Party p : parties) {
      p.process.send("BURST " + run + ":burst: " + BURST_KEYS + " " + BURST_THREADS + " 20");
    }
    Map<String, Set<String>> given = new HashMap<>();
    for (Party p : parties) {
      String head = p.next(l -> l.startsWith("BURST executed="));
      counts.burstExecutions += Long.parseLong(head.substring("BURST executed=".length()));
      counts.executions += Long.parseLong(head.substring("BURST executed=".length()));
      while (true) {
        String line = p.next(l -> l.startsWith("BR ") || l.equals("BURSTEND"));
        if (line.equals("BURSTEND")) {
          break;
        }
        String[] parts = line.split(" ", 3);
        given.computeIfAbsent(parts[1], k -> new HashSet<>()).add(parts[2]);
      }
    }
    counts.burstAnswered = given.size();
    counts.burstDivergent = given.values().stream().filter(s -> s.size() > 1).count();
    return counts;
  }

  private static Party start(String name, List<String> args, Map<String, String> env, String run) throws Exception {
    List<String> all = new ArrayList<>(args);
    all.add("--name=" + name);
    return new Party(name, WorkerProcess.start(SkewWorker.class, all, env, run + "-skew-" + name));
  }

  private static void assertShifted(long shift, long expected, String name) {
    assertThat(Math.abs(shift - expected))
        .as("the '%s' JVM's System.currentTimeMillis() is %d ms from the test's; expected %d ms (libfaketime"
            + " did not take effect?)", name, shift, expected)
        .isLessThan(Duration.ofMinutes(1).toMillis());
  }
}
