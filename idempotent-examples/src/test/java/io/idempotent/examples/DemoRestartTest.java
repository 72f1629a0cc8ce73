package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo run twice, as two separate JVM processes on one H2 file: the second run finds the first
 * run's records on disk and replays every scenario (except the forms, which render new tokens).
 */
class DemoRestartTest {

  /** First-run executions per scenario on an empty file. */
  private static final Map<String, Long> FIRST_RUN_EXECUTIONS = Map.of(
      "1", 1L, "2", 1L, "3", 1L, "4a", 2L, "4b", 1L, "5", 2L, "6", 3L, "7", 6L, "8", 2L, "9", 1L);

  @TempDir
  Path dir;

  @Test
  void demo_runTwiceOnOneH2File_secondRunReplaysWhatTheFirstRecorded() throws Exception {
    Path file = dir.resolve("shop");
    String first = runDemo(file);
    String second = runDemo(file);

    assertThat(first).contains("Records are kept in: H2 file " + file + ".mv.db")
        .contains("Records from an earlier run: none");
    assertThat(second).containsPattern("Records from an earlier run: [1-9]\\d* found");

    Map<String, DemoTableRow> before = DemoTableRow.parse(first);
    Map<String, DemoTableRow> after = DemoTableRow.parse(second);
    assertThat(before.keySet()).containsExactly("1", "2", "3", "4a", "4b", "5", "6", "7", "8", "9");
    assertThat(after.keySet()).isEqualTo(before.keySet());
    for (DemoTableRow row : before.values()) {
      assertThat(row.executions()).as("first run, executions of " + row.id())
          .isEqualTo(FIRST_RUN_EXECUTIONS.get(row.id()));
      assertThat(row.sideEffects()).as("first run, side effects of " + row.id()).isPositive();
      assertThat(row.calls()).as("first run, calls of " + row.id()).isEqualTo(row.executions() + row.absorbed());
    }
    for (DemoTableRow row : after.values()) {
      DemoTableRow then = before.get(row.id());
      assertThat(row.calls()).as("second run, calls of " + row.id()).isEqualTo(then.calls());
      if (row.id().equals("8")) { // new forms, new tokens: they run, once per form
        assertThat(row.executions()).isEqualTo(then.executions());
        assertThat(row.sideEffects()).isEqualTo(then.sideEffects());
      } else {
        assertThat(row.executions()).as("second run, executions of " + row.id()).isZero();
        assertThat(row.sideEffects()).as("second run, side effects of " + row.id()).isZero();
        assertThat(row.absorbed()).as("second run, absorbed calls of " + row.id()).isEqualTo(row.calls());
      }
    }
    // the first run's receipt comes back from the file
    String receipt = before.get("1").how().replaceAll(".*receipt (\\S+) each time.*", "$1");
    assertThat(after.get("1").how()).contains("receipt " + receipt + " each time");
  }

  private static String runDemo(Path file) throws Exception {
    return DemoProcess.start("jdbc:h2:file:" + file + ";LOCK_TIMEOUT=10000").finish();
  }
}
