package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testservers.TestServers;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server of the test's own ({@code mariadb-install-db} into a temporary folder, a free port),
 * which the test may crash: {@link #crash()} kills {@code mariadbd} with SIGKILL, and {@link #startServer()}
 * starts it again on the same data (InnoDB crash recovery rolls back what had not committed). Needs
 * {@code mariadb-install-db} and {@code mariadbd} on the path; without them the test is skipped, or fails
 * when {@code idempotent.requireServers=true}.
 */
final class ScratchMariaDb implements AutoCloseable {

  private final Path dir;
  private final int port;
  private Process server;

  private ScratchMariaDb(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  /** Creates and starts a new server with an empty database {@code scratch}, or skips the calling test. */
  static ScratchMariaDb start() throws Exception {
    if (!onPath("mariadb-install-db") || !onPath("mariadbd")) {
      TestServers.skipOrFail("No MariaDB server binaries (mariadb-install-db, mariadbd) on the PATH.");
    }
    Path dir = Files.createTempDirectory("idempotent-scratch-mariadb");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    ScratchMariaDb db = new ScratchMariaDb(dir, port);
    Process install = new ProcessBuilder("mariadb-install-db", "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--auth-root-authentication-method=normal", "--skip-test-db", "--user=" + System.getProperty("user.name"))
        .redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile()).start();
    if (!install.waitFor(2, TimeUnit.MINUTES) || install.exitValue() != 0) {
      install.destroyForcibly();
      throw new IllegalStateException("mariadb-install-db failed: " + Files.readString(dir.resolve("install.log")));
    }
    db.startServer();
    try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "")) {
      c.createStatement().execute("CREATE DATABASE scratch");
    }
    return db;
  }

  private static boolean onPath(String name) {
    String path = System.getenv("PATH");
    for (String d : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", name));
  }

  /** Starts the server on the existing data folder (after a crash: with crash recovery) and waits for it. */
  void startServer() throws Exception {
    String mariadbd = Files.isExecutable(Path.of("/usr/sbin/mariadbd")) ? "/usr/sbin/mariadbd" : "mariadbd";
    server = new ProcessBuilder(mariadbd, "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("sock"),
        "--user=" + System.getProperty("user.name"), "--innodb-buffer-pool-size=32M",
        "--innodb-flush-log-at-trx-commit=1", "--log-error=" + dir.resolve("server.log"))
        .redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "")) {
        return;
      } catch (SQLException e) {
        if (!server.isAlive() || System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("The scratch MariaDB did not start; its log: "
              + Files.readString(dir.resolve("server.log")), e);
        }
        Thread.sleep(100);
      }
    }
  }

  /** Kills the server and anything it started with SIGKILL. */
  void crash() throws InterruptedException {
    ProcessHandle p = server.toHandle();
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    all.add(p);
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : all) {
      h.onExit().join();
    }
    server.waitFor();
  }

  HikariDataSource pool(String name) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl("jdbc:mariadb://127.0.0.1:" + port + "/scratch");
    hc.setUsername("root");
    hc.setPassword("");
    hc.setMaximumPoolSize(2);
    hc.setConnectionTimeout(2_000);
    hc.setPoolName(name);
    return new HikariDataSource(hc);
  }

  @Override
  public void close() throws Exception {
    if (server != null && server.isAlive()) {
      crash(); // its data is thrown away next
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
