package io.idempotent.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LoadWorker} in a JVM of its own: same class path as the tests, the current {@code java}
 * binary, standard output read line by line, standard error kept in {@code target/workers/}. Not
 * thread-safe; one test drives it.
 */
final class WorkerProcess implements AutoCloseable {

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  final Path log;

  private WorkerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the process died; what was read is kept
      }
    }, "worker-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  static WorkerProcess start(WorkerOptions options) throws IOException {
    return start(LoadWorker.class, options.toArgs(), Map.of(),
        options.run() + "-" + options.mode() + "-" + options.worker());
  }

  /**
   * Starts {@code main} with {@code args}, adding {@code environment} to this process's environment;
   * standard error goes to {@code target/workers/<logName>.log}.
   */
  static WorkerProcess start(Class<?> main, List<String> args, Map<String, String> environment, String logName)
      throws IOException {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    Path dir = Path.of("target", "workers");
    Files.createDirectories(dir);
    Path log = dir.resolve(logName + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
    pb.environment().putAll(environment);
    return new WorkerProcess(pb.start(), log);
  }

  /** Waits for a line starting with {@code prefix}; fails if the process ends or the timeout passes first. */
  String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        seen.add(line);
        if (line.startsWith(prefix)) {
          return line;
        }
        continue;
      }
      if (!process.isAlive() && lines.isEmpty()) {
        throw new AssertionError("worker ended (exit " + process.exitValue() + ") before printing '" + prefix
            + "'; output " + seen + "; see " + log.toAbsolutePath());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("no '" + prefix + "' from the worker within " + timeout + "; output " + seen
            + "; see " + log.toAbsolutePath());
      }
    }
  }

  /** The {@code name=value} pairs of the {@code DONE} line, after the process exits with 0. */
  Map<String, String> awaitDone(Duration timeout) throws InterruptedException {
    String line = awaitLine("DONE", timeout);
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("worker did not exit after DONE; see " + log.toAbsolutePath());
    }
    if (process.exitValue() != 0) {
      throw new AssertionError("worker exited with " + process.exitValue() + "; see " + log.toAbsolutePath());
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String part : line.substring("DONE".length()).trim().split(" (?![^\\[]*\\])")) {
      int eq = part.indexOf('=');
      values.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return values;
  }

  /** Tells a worker waiting after {@code READY} to start. */
  void go() throws IOException {
    send("GO");
  }

  /** Writes one line to the worker's standard input. */
  void send(String line) throws IOException {
    process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  /** SIGKILL: the process gets no chance to release, complete or renew anything. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("worker survived SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
