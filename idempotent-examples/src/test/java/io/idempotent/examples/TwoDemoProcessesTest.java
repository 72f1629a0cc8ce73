package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two demo processes started at the same moment on one database: two separate JVMs, each with its own
 * pools, stores and engines (and three more instances each in the settlement scenario), sending the
 * same keys at the same time. An H2 file serves several processes in its automatic mixed mode
 * ({@code AUTO_SERVER=TRUE}): this test's JVM opens it first and serves it to both for as long as they
 * run. Whichever process runs a call, the side effects of both together are those of one run.
 */
class TwoDemoProcessesTest {

  /** Side effects of one run on an empty database, per scenario. */
  private static final Map<String, Long> ONE_RUN_SIDE_EFFECTS = Map.of(
      "1", 1L, "2", 1L, "3", 1L, "4a", 1L, "4b", 1L, "5", 2L, "6", 3L, "7", 6L, "8", 2L, "9", 1L);
  /** Scenarios whose executions add up to one run's whatever the interleaving: 4a's failed first
   * attempts may run in both processes, and each process renders forms of its own (8). */
  private static final Set<String> ONCE_ACROSS_PROCESSES = Set.of("1", "2", "3", "4b", "5", "6", "7", "9");
  private static final Map<String, Long> ONE_RUN_EXECUTIONS = Map.of(
      "1", 1L, "2", 1L, "3", 1L, "4b", 1L, "5", 2L, "6", 3L, "7", 6L, "9", 1L);

  @TempDir
  Path dir;

  @Test
  void demo_twoProcessesAtOnceOnOneDatabase_sideEffectsAddUpToOneRun() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("shop") + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
    String first;
    String second;
    // the same (empty) user the demo connects with when its url names no user
    try (Connection server = DriverManager.getConnection(url, "", "")) {
      DemoProcess a = DemoProcess.start(url);
      DemoProcess b = DemoProcess.start(url);
      first = a.finish();
      second = b.finish();
    }
    // kept for a look at how the two interleaved
    Files.writeString(Path.of("target", "two-demo-processes-a.txt"), first);
    Files.writeString(Path.of("target", "two-demo-processes-b.txt"), second);
    Map<String, DemoTableRow> ra = DemoTableRow.parse(first);
    Map<String, DemoTableRow> rb = DemoTableRow.parse(second);
    assertThat(ra.keySet()).isEqualTo(ONE_RUN_SIDE_EFFECTS.keySet());
    assertThat(rb.keySet()).isEqualTo(ONE_RUN_SIDE_EFFECTS.keySet());
    for (String id : ONE_RUN_SIDE_EFFECTS.keySet()) {
      long perProcess = id.equals("8") ? 2 : 1;
      assertThat(ra.get(id).sideEffects() + rb.get(id).sideEffects()).as("side effects of scenario " + id)
          .isEqualTo(ONE_RUN_SIDE_EFFECTS.get(id) * perProcess);
      assertThat(ra.get(id).calls()).as("calls of " + id).isEqualTo(ra.get(id).executions() + ra.get(id).absorbed());
      assertThat(rb.get(id).calls()).as("calls of " + id).isEqualTo(rb.get(id).executions() + rb.get(id).absorbed());
    }
    for (String id : ONCE_ACROSS_PROCESSES) {
      assertThat(ra.get(id).executions() + rb.get(id).executions()).as("executions of scenario " + id)
          .isEqualTo(ONE_RUN_EXECUTIONS.get(id));
    }
  }
}
