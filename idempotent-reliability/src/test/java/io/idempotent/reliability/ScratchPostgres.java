package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testservers.TestServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own (initdb into a temporary folder, a free port), which the test
 * may crash: {@link #crash()} kills the postmaster and every backend with SIGKILL, so whatever WAL was
 * still in shared memory is gone, as in a power cut for commits that had not reached the disk. The WAL
 * writer sleeps {@code wal_writer_delay = 10s} between rounds, so an asynchronous commit stays unwritten
 * for seconds. Needs the server binaries (Debian's {@code /usr/lib/postgresql/<version>/bin}, or
 * {@code -Didempotent.test.pgBin}); as root it runs them as the {@code postgres} user. Without them the
 * test is skipped, or fails when {@code idempotent.requireServers=true}.
 *
 * <p>A server can also be a streaming standby of another ({@link #standby}: {@code pg_basebackup -R}),
 * promoted with {@link #promote()} after its primary was crashed. Extra {@code -c name=value} settings
 * given at start override the defaults above.
 */
final class ScratchPostgres implements AutoCloseable {

  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgresUser;
  private final List<String> settings;
  private Process server;

  private ScratchPostgres(Path bin, Path dir, int port, boolean asPostgresUser, List<String> settings) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgresUser = asPostgresUser;
    this.settings = List.copyOf(settings);
  }

  /** Creates and starts a new server, or skips (fails, when servers are required) the calling test. */
  static ScratchPostgres start(String... settings) throws Exception {
    ScratchPostgres pg = create(List.of(settings));
    pg.run(Duration.ofMinutes(2), pg.bin.resolve("initdb").toString(), "-D", pg.dir.resolve("data").toString(),
        "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8");
    pg.startServer();
    return pg;
  }

  /**
   * A new server that streams this one's WAL as a hot standby: a base backup taken now
   * ({@code pg_basebackup -R}, which writes {@code primary_conninfo} and {@code standby.signal}),
   * started with {@code settings}, returned once it accepts read-only connections.
   */
  ScratchPostgres standby(String... settings) throws Exception {
    ScratchPostgres standby = create(List.of(settings));
    standby.run(Duration.ofMinutes(2), bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1",
        "-p", Integer.toString(port), "-U", "postgres", "-D", standby.dir.resolve("data").toString(),
        "-R", "-X", "stream", "-c", "fast", "--no-sync");
    standby.startServer();
    return standby;
  }

  private static ScratchPostgres create(List<String> settings) throws Exception {
    Path bin = findBin();
    if (bin == null) {
      TestServers.skipOrFail("No PostgreSQL server binaries (initdb, postgres) under /usr/lib/postgresql/*/bin;"
          + " set -Didempotent.test.pgBin=<folder>.");
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("idempotent-scratch-pg");
    if (root) {
      UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      Files.setOwner(dir, postgres);
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    return new ScratchPostgres(bin, dir, port, root, settings);
  }

  private static Path findBin() throws IOException {
    String configured = System.getProperty("idempotent.test.pgBin");
    if (configured != null) {
      return Files.isExecutable(Path.of(configured, "postgres")) ? Path.of(configured) : null;
    }
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions.map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("postgres")))
          .max(Comparator.comparing(Path::toString))
          .orElse(null);
    }
  }

  /** Starts the server on the existing data folder (after a crash: with crash recovery) and waits for it. */
  void startServer() throws Exception {
    List<String> command = command(bin.resolve("postgres").toString(), "-D", dir.resolve("data").toString(),
        "-p", Integer.toString(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir,
        "-c", "fsync=on", "-c", "synchronous_commit=on", "-c", "wal_writer_delay=10000ms",
        "-c", "autovacuum=off", "-c", "checkpoint_timeout=1h", "-c", "max_connections=20");
    for (String setting : settings) {
      command.addAll(List.of("-c", setting)); // later settings win
    }
    server = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("server.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try (Connection c = DriverManager.getConnection(url(), "postgres", "")) {
        return;
      } catch (SQLException e) {
        if (!server.isAlive() || System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("The scratch PostgreSQL did not start; its log: "
              + Files.readString(dir.resolve("server.log")), e);
        }
        Thread.sleep(100);
      }
    }
  }

  /** Kills the postmaster and all its processes at once with SIGKILL: nothing gets to flush anything. */
  void crash() throws InterruptedException {
    ProcessHandle postmaster = server.toHandle();
    List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
    all.add(postmaster);
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : all) {
      p.onExit().join();
    }
    server.waitFor();
  }

  /** Ends recovery on a standby ({@code pg_promote}, waiting up to a minute); it then accepts writes. */
  void promote() throws SQLException {
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
        var st = c.createStatement();
        var rs = st.executeQuery("SELECT pg_promote(true, 60)")) {
      if (!rs.next() || !rs.getBoolean(1)) {
        throw new IllegalStateException("the standby on port " + port + " was not promoted within 60 s");
      }
    }
  }

  /**
   * CPU time (user and system) the server has used so far, in milliseconds: the postmaster and every
   * process it runs now (backends, WAL writer, checkpointer), read from {@code /proc/<pid>/stat}.
   */
  long cpuMillis() throws IOException {
    long ticks = 0;
    List<ProcessHandle> all = new ArrayList<>(server.toHandle().descendants().toList());
    all.add(server.toHandle());
    for (ProcessHandle p : all) {
      Path stat = Path.of("/proc", Long.toString(p.pid()), "stat");
      String text;
      try {
        text = Files.readString(stat);
      } catch (IOException e) {
        continue; // ended meanwhile
      }
      String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
      ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14, 15)
    }
    return ticks * 1000 / CLOCK_TICKS_PER_SECOND;
  }

  /** USER_HZ, which Linux fixes at 100 for {@code /proc} on every architecture this runs on. */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

  int port() {
    return port;
  }

  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  HikariDataSource pool(String name) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url());
    hc.setUsername("postgres");
    hc.setPassword("");
    hc.setMaximumPoolSize(2);
    hc.setConnectionTimeout(2_000); // a crashed server is refused fast, not waited for
    hc.setPoolName(name);
    return new HikariDataSource(hc);
  }

  private List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    if (asPostgresUser) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.addAll(List.of(args));
    return command;
  }

  private void run(Duration timeout, String... args) throws Exception {
    Path log = dir.resolve("command.log");
    Process p = new ProcessBuilder(command(args)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", args) + " did not finish in " + timeout);
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", args) + " failed: " + Files.readString(log));
    }
  }

  @Override
  public void close() throws Exception {
    if (server != null && server.isAlive()) {
      server.destroy(); // SIGTERM: a smart shutdown
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        crash();
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
