package io.idempotent.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Two instances of the application on one PostgreSQL database, each firing the settlement job every
 * second: each period is settled once. The first instance runs in this JVM; the second is a JVM of its
 * own, started from the application's main class on the test class path, as a second server would be
 * (two applications in one JVM would share the aspect's one global configuration).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "sample.settlement.cron=" + ScheduledJobAcrossInstancesTest.EVERY_SECOND,
    "sample.settlement.period=PT1S",
    "sample.instance=first",
    "spring.main.banner-mode=off",
    "logging.level.root=warn"})
@DirtiesContext
class ScheduledJobAcrossInstancesTest {

  static final String EVERY_SECOND = "* * * * * *";
  /** How many periods both instances must have fired in. */
  private static final int SHARED_PERIODS = 4;

  static PostgresSchema schema;

  @BeforeAll
  static void createSchema() {
    schema = PostgresSchema.create();
  }

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> schema.url());
    registry.add("spring.datasource.username", () -> io.idempotent.testservers.TestServers.POSTGRES.user);
    registry.add("spring.datasource.password", () -> io.idempotent.testservers.TestServers.POSTGRES.password);
  }

  @AfterAll
  static void dropSchema() {
    if (schema != null) {
      schema.drop();
    }
  }

  @Autowired
  JdbcTemplate jdbc;

  @TempDir
  Path dir;

  @Test
  void twoInstancesFiringEverySecond_settleEachPeriodOnce() throws Exception {
    Path log = dir.resolve("second-instance.log");
    Process second = startSecondInstance(log);
    List<String> shared;
    try {
      awaitAttempts(second, log, "instance = 'second'", 1, Duration.ofSeconds(60));
      shared = awaitSharedPeriods(second, log, Duration.ofSeconds(30));
    } finally {
      stop(second);
    }

    for (String period : shared) {
      List<Map<String, Object>> runs = jdbc.queryForList("SELECT instance FROM settlement_run WHERE period = ?", period);
      List<String> executed = jdbc.queryForList(
          "SELECT instance FROM settlement_attempt WHERE period = ? AND outcome = 'EXECUTED'", String.class, period);
      List<String> others = jdbc.queryForList(
          "SELECT outcome FROM settlement_attempt WHERE period = ? AND outcome <> 'EXECUTED'", String.class, period);
      assertThat(runs).as("the settlements of period %s", period).hasSize(1);
      assertThat(executed).as("the attempts that settled period %s", period).hasSize(1);
      assertThat(others).as("the other instance's attempt in period %s", period).hasSize(1)
          .allMatch(outcome -> outcome.equals("SKIPPED") || outcome.equals("REPLAYED"));
    }
    assertThat(jdbc.queryForList("SELECT period FROM settlement_run GROUP BY period HAVING COUNT(*) > 1", String.class))
        .as("periods settled more than once").isEmpty();
  }

  private Process startSecondInstance(Path log) throws IOException {
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-cp", classPath, SampleApplication.class.getName(),
        "--server.port=0", "--sample.instance=second", "--sample.settlement.cron=" + EVERY_SECOND,
        "--sample.settlement.period=PT1S", "--spring.main.banner-mode=off", "--logging.level.root=warn"));
    command.addAll(List.of(schema.datasourceArguments()));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Waits until {@code minimum} attempts match {@code condition}; fails if the second instance ended first. */
  private void awaitAttempts(Process second, Path log, String condition, int minimum, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (jdbc.queryForObject("SELECT COUNT(*) FROM settlement_attempt WHERE " + condition, Integer.class) < minimum) {
      checkRunning(second, log);
      if (System.nanoTime() > deadline) {
        throw new AssertionError("The second instance did not fire within " + timeout + "; its output:\n" + tail(log));
      }
      Thread.sleep(100); // polling another process: there is no clock of ours to advance
    }
  }

  /**
   * Waits until both instances fired in {@link #SHARED_PERIODS} periods that ended two seconds ago or
   * earlier (so that the settlement of each committed), and returns those periods.
   */
  private List<String> awaitSharedPeriods(Process second, Path log, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String settledBefore = Instant.now().minusSeconds(2).toString();
      List<String> shared = jdbc.queryForList("SELECT period FROM settlement_attempt WHERE period < ?"
          + " GROUP BY period HAVING COUNT(DISTINCT instance) = 2 ORDER BY period", String.class, settledBefore);
      if (shared.size() >= SHARED_PERIODS) {
        return shared;
      }
      checkRunning(second, log);
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Both instances fired in only " + shared.size() + " periods within " + timeout
            + "; the second instance's output:\n" + tail(log));
      }
      Thread.sleep(200);
    }
  }

  private static void checkRunning(Process second, Path log) throws IOException {
    if (!second.isAlive()) {
      throw new AssertionError("The second instance exited with " + second.exitValue() + "; its output:\n" + tail(log));
    }
  }

  private static void stop(Process second) throws InterruptedException {
    second.destroy(); // SIGTERM: Spring closes the application
    if (!second.waitFor(20, TimeUnit.SECONDS)) {
      second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
