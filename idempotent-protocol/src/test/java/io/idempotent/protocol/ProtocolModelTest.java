package io.idempotent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.testservers.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the module's {@code check} script: spin checks {@code idempotency.pml} exhaustively in every
 * configuration, and every broken variant must give a trail for the property it breaks (docs/DESIGN.md §11).
 * Without spin or a C compiler, and no way to install them, the test is skipped with one line (failed under
 * {@code -Didempotent.requireServers=true}).
 */
class ProtocolModelTest {

  /** What the script prints last when every run went as it must. */
  private static final String ALL_AS_THEY_MUST = "every property holds and every broken variant was caught";
  /** The script's exit status when spin or gcc is missing. */
  private static final int TOOLS_MISSING = 3;

  @Test
  void everyPropertyHolds_andEveryBrokenVariantGivesATrail() throws IOException, InterruptedException {
    Path script = Path.of("check").toAbsolutePath();
    Path report = Files.createTempFile("protocol-model", ".txt");
    try {
      Process check = new ProcessBuilder("bash", script.toString())
          .directory(script.getParent().toFile())
          .redirectErrorStream(true)
          .redirectOutput(report.toFile())
          .start();
      if (!check.waitFor(20, TimeUnit.MINUTES)) {
        check.destroyForcibly();
        throw new AssertionError("the model check did not end within 20 minutes");
      }
      String output = Files.readString(report, StandardCharsets.UTF_8);
      System.out.print(output);
      if (check.exitValue() == TOOLS_MISSING) {
        String line = output.lines().reduce((first, last) -> last).orElse("spin is missing");
        System.err.println("[idempotent tests] " + line);
        TestServers.skipOrFail(line);
      }
      assertThat(check.exitValue()).as(output).isZero();
      assertThat(output).contains(ALL_AS_THEY_MUST).doesNotContain("[model] FAIL");
    } finally {
      Files.deleteIfExists(report);
    }
  }
}
