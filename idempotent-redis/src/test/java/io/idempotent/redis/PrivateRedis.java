package io.idempotent.redis;

import io.idempotent.testservers.TestServers;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Redis server of a test's own, on a free port, without persistence: for what must not be done to a
 * shared server (restarts, memory limits, eviction, statistics resets). Needs the {@code redis-server}
 * binary (on the PATH, or named by {@code idempotent.test.redis.server}); without it the test is
 * skipped, or fails when {@code idempotent.requireServers=true}.
 */
final class PrivateRedis implements AutoCloseable {

  private final String binary;
  private final int port;
  private final List<String> options;
  private final Path dir;
  private Process process;

  private PrivateRedis(String binary, int port, List<String> options, Path dir) {
    this.binary = binary;
    this.port = port;
    this.options = options;
    this.dir = dir;
  }

  /** Starts a server with extra {@code redis-server} options such as {@code --maxmemory 4mb}. */
  static PrivateRedis launch(String... options) throws Exception {
    String binary = findBinary();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    PrivateRedis r = new PrivateRedis(binary, port, List.of(options), Files.createTempDirectory("private-redis"));
    r.start();
    return r;
  }

  /** Starts a server on {@code port} that has been free a moment ago (a cluster names its ports up front). */
  static PrivateRedis launchOn(int port, String... options) throws Exception {
    PrivateRedis r = new PrivateRedis(findBinary(), port, List.of(options), Files.createTempDirectory("private-redis"));
    r.start();
    return r;
  }

  /** A port free a moment ago. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The {@code redis-cli} next to the {@code redis-server} the tests use. */
  static String cliBinary() {
    File cli = new File(new File(findBinary()).getParentFile(), "redis-cli");
    if (!cli.canExecute()) {
      TestServers.skipOrFail("redis-cli is not next to " + findBinary() + "; the cluster tests cannot create a cluster");
    }
    return cli.getPath();
  }

  static String findBinary() {
    String named = System.getProperty("idempotent.test.redis.server");
    if (named != null) {
      return named;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "redis-server");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    String message = "redis-server is not on the PATH (or named by idempotent.test.redis.server);"
        + " tests that need a Redis of their own cannot run. Install it, as .ci/start-servers.sh does.";
    TestServers.skipOrFail(message);
    throw new AssertionError("unreachable");
  }

  /** (Re)starts the server on its port, empty: nothing is persisted. */
  void start() throws Exception {
    List<String> cmd = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
    cmd.addAll(options);
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Jedis probe = admin()) {
        probe.ping();
        return;
      } catch (RuntimeException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("A private redis-server did not start on port " + port + ": "
              + Files.readString(dir.resolve("redis.log")), e);
        }
        Thread.sleep(20);
      }
    }
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Kills the server at once, as a crash or a restart would: everything it held is gone. */
  void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  int port() {
    return port;
  }

  /** A single connection for administration; the caller closes it. Not thread-safe. */
  Jedis admin() {
    return new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder().timeoutMillis(2_000).build());
  }

  RedisIdempotencyStore store() {
    return RedisIdempotencyStore.builder().host("127.0.0.1").port(port).timeout(java.time.Duration.ofSeconds(1))
        .build();
  }

  @Override
  public void close() throws InterruptedException, IOException {
    stop();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
