package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The demo as a separate JVM process, the way a user starts it, on a database named by its JDBC URL. */
final class DemoProcess {

  private final Process process;
  private final CompletableFuture<String> output;

  private DemoProcess(Process process) {
    this.process = process;
    this.output = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
  }

  /** Starts the demo on {@code jdbcUrl}, settling the same days whatever the date. */
  static DemoProcess start(String jdbcUrl) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb = new ProcessBuilder(List.of(java.toString(),
        "-cp", System.getProperty("java.class.path"),
        "-Didempotent.jdbi.url=" + jdbcUrl,
        "-Ddemo.today=2025-06-02", // every run settles the same days, even across midnight
        Demo.class.getName()));
    pb.redirectErrorStream(true);
    return new DemoProcess(pb.start());
  }

  /** Waits for the demo to finish successfully; returns what it printed. */
  String finish() throws Exception {
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("the demo finished").isTrue();
    String text = output.get(1, TimeUnit.MINUTES);
    assertThat(process.exitValue()).as("exit code; output:%n%s", text).isZero();
    return text;
  }

  private static String read(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
