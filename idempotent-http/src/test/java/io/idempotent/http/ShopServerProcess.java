package io.idempotent.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link ShopServerMain} started in another JVM: the {@code java} of this one, the test class path, its
 * standard output read line by line, its standard error kept in a file next to the database. Closing it
 * kills the process if it still runs. One test drives it.
 */
final class ShopServerProcess implements AutoCloseable {

  private final Process process;
  private final Path errors;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final int port;

  private ShopServerProcess(Process process, Path errors) throws InterruptedException {
    this.process = process;
    this.errors = errors;
    Thread reader = new Thread(this::readOutput, "shop-server-output");
    reader.setDaemon(true);
    reader.start();
    this.port = Integer.parseInt(awaitLine(ShopServerMain.PORT, Duration.ofSeconds(30))
        .substring(ShopServerMain.PORT.length()).trim());
  }

  /** Starts a server on the H2 database {@code h2File} and waits until it listens. */
  static ShopServerProcess start(Path h2File, Duration lease, Path releaseFile, String name) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path errors = h2File.resolveSibling(name + ".stderr.log");
    Process p = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), ShopServerMain.class.getName(),
        h2File.toString(), Long.toString(lease.toMillis()), releaseFile.toString())
        .redirectError(errors.toFile())
        .start();
    try {
      return new ShopServerProcess(p, errors);
    } catch (Throwable t) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw t;
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** Waits for a line of output that starts with {@code prefix}; fails when the process ends or time runs out. */
  String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      String line = lines.poll(50, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(prefix)) {
        return line;
      }
      if (line == null && !process.isAlive() && lines.isEmpty()) {
        throw new AssertionError("the server process ended (exit " + process.exitValue() + ") before printing '"
            + prefix + "'; output " + output + "; errors: " + errors());
      }
    }
    throw new AssertionError("no '" + prefix + "' from the server process within " + timeout + "; output " + output
        + "; errors: " + errors());
  }

  /** SIGKILL: no shutdown hook, no graceful stop of Jetty or of the database. Returns once the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the server process survived SIGKILL");
    }
  }

  /** SIGTERM, and waits until the process has ended (its database closed by the shutdown hook). */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      kill();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      Stopping.unchecked(this::kill);
    }
  }

  private void readOutput() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        output.add(line);
        lines.add(line);
      }
    } catch (IOException e) {
      // the process is gone; what it printed is kept
    }
  }

  private String errors() {
    try {
      return Files.exists(errors) ? Files.readString(errors) : "(none)";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
