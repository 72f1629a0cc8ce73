package io.idempotent.testkit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Reach the server a test needs, or skip the test (fail it when {@code -Didempotent.requireServers=true}).
 * Each server is probed once per test JVM, and an unreachable one is reported once on the console, so a
 * build without servers shows one line per server rather than one stack per test. Thread-safe.
 */
public final class TestServers {

  /** The system property that turns an unreachable server into a test failure. */
  public static final String REQUIRE_SERVERS = "idempotent.requireServers";

  private static final Map<String, String> PROBLEMS = new ConcurrentHashMap<>();

  private TestServers() {}

  /**
   * Skips the calling test when {@code probe} reports a problem for {@code server}, or fails it when servers
   * are required. {@code probe} returns "" when the server can be used; it runs once per JVM and server,
   * and a problem is reported once on the console.
   */
  public static void requireReachable(String server, Supplier<String> probe) {
    String problem = problem(server, probe, true);
    if (!problem.isEmpty()) {
      skipOrFail(problem, Boolean.getBoolean(REQUIRE_SERVERS));
    }
  }

  /**
   * As {@link #requireReachable(String, Supplier)}, failing rather than skipping when {@code required}, and
   * without a line on the console: for tests of this logic, whose unreachable servers are meant to be so.
   */
  public static void requireReachable(String server, Supplier<String> probe, boolean required) {
    String problem = problem(server, probe, false);
    if (!problem.isEmpty()) {
      skipOrFail(problem, required);
    }
  }

  /** Why {@code server} cannot be used, or "" when it can; probed once per JVM. */
  public static String problem(String server, Supplier<String> probe) {
    return problem(server, probe, false);
  }

  private static String problem(String server, Supplier<String> probe, boolean announce) {
    return PROBLEMS.computeIfAbsent(server, s -> {
      String problem = probe.get();
      if (announce && !problem.isEmpty()) {
        System.err.println("[idempotent tests] " + problem + (Boolean.getBoolean(REQUIRE_SERVERS)
            ? " Its tests fail (idempotent.requireServers=true)." : " Its tests are skipped."));
      }
      return problem;
    });
  }

  /** Aborts the calling test for {@code problem} (a skip), or fails it when {@code required}. */
  public static void skipOrFail(String problem, boolean required) {
    if (required) {
      throw new AssertionFailedError(problem + " Servers are required (" + REQUIRE_SERVERS + "=true).");
    }
    throw new TestAbortedException("Skipped: " + problem);
  }
}
