package io.idempotent.testservers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Reach the server a test needs, or skip the test (fail it when {@code -Didempotent.requireServers=true}).
 * Each server is probed once per test JVM, and an unreachable one is reported once on the console, so a
 * build without servers shows one line per server rather than one stack per test. Thread-safe.
 *
 * <p>The servers the project's tests use are {@link #POSTGRES}, {@link #MARIADB} and {@link #REDIS}, on
 * 127.0.0.1 unless system properties say otherwise ({@code idempotent.test.postgres.url}, {@code .user},
 * {@code .password}, {@code .adminUser}, {@code .adminPassword}, the same under {@code
 * idempotent.test.mariadb.}, and {@code idempotent.test.redis.host}, {@code .port}). A store's test calls
 * {@code requireReachable()} on the one it needs before it connects:
 *
 * <pre>{@code
 * @Override
 * protected IdempotencyStore createStore() {
 *   TestServers.POSTGRES.requireReachable(); // skips here, or fails when servers are required
 *   return MyStore.connect(TestServers.POSTGRES.url, TestServers.POSTGRES.user, TestServers.POSTGRES.password);
 * }
 * }</pre>
 *
 * For any other server, {@link #requireReachable(String, Supplier)} takes a probe of the test's own.
 */
public final class TestServers {

  /** The system property that turns an unreachable server into a test failure. */
  public static final String REQUIRE_SERVERS = "idempotent.requireServers";

  /** The PostgreSQL server; its administrator defaults to {@code postgres} with an empty password. */
  public static final DatabaseServer POSTGRES = DatabaseServer.configured("PostgreSQL", "postgres",
      "jdbc:postgresql://127.0.0.1:5432/idempotent_test", "postgres");

  /** The MariaDB server; its administrator defaults to {@code root} with an empty password. */
  public static final DatabaseServer MARIADB = DatabaseServer.configured("MariaDB", "mariadb",
      "jdbc:mariadb://127.0.0.1:3306/idempotent_test", "root");

  /** The Redis server. */
  public static final RedisServer REDIS = new RedisServer(System.getProperty("idempotent.test.redis.host", "127.0.0.1"),
      Integer.getInteger("idempotent.test.redis.port", 6379));

  /** The RabbitMQ broker (AMQP 0-9-1); its stock account {@code guest}/{@code guest} is used. */
  public static final BrokerServer RABBITMQ = new BrokerServer("RabbitMQ", "rabbitmq", 5672,
      BrokerServer::amqpProblem);

  /** The NATS server, with JetStream on. */
  public static final BrokerServer NATS = new BrokerServer("NATS", "nats", 4222, BrokerServer::natsProblem);

  private static final Map<String, String> PROBLEMS = new ConcurrentHashMap<>();

  private TestServers() {}

  /**
   * Skips the calling test when {@code probe} reports a problem for {@code server}, or fails it when servers
   * are required. {@code probe} returns "" when the server can be used; it runs once per JVM and server,
   * and a problem is reported once on the console.
   */
  public static void requireReachable(String server, Supplier<String> probe) {
    String problem = problem(server, probe, true);
    if (!problem.isEmpty()) {
      skipOrFail(problem, Boolean.getBoolean(REQUIRE_SERVERS));
    }
  }

  /**
   * As {@link #requireReachable(String, Supplier)}, failing rather than skipping when {@code required}, and
   * without a line on the console: for tests of this logic, whose unreachable servers are meant to be so.
   */
  public static void requireReachable(String server, Supplier<String> probe, boolean required) {
    String problem = problem(server, probe, false);
    if (!problem.isEmpty()) {
      skipOrFail(problem, required);
    }
  }

  /** Why {@code server} cannot be used, or "" when it can; probed once per JVM. */
  public static String problem(String server, Supplier<String> probe) {
    return problem(server, probe, false);
  }

  private static String problem(String server, Supplier<String> probe, boolean announce) {
    return PROBLEMS.computeIfAbsent(server, s -> {
      String problem = probe.get();
      if (announce && !problem.isEmpty()) {
        System.err.println("[idempotent tests] " + problem + (Boolean.getBoolean(REQUIRE_SERVERS)
            ? " Its tests fail (idempotent.requireServers=true)." : " Its tests are skipped."));
      }
      return problem;
    });
  }

  /** Aborts the calling test for {@code problem} (a skip), or fails it when {@code required}. */
  public static void skipOrFail(String problem, boolean required) {
    if (required) {
      throw new AssertionFailedError(problem + " Servers are required (" + REQUIRE_SERVERS + "=true).");
    }
    throw new TestAbortedException("Skipped: " + problem);
  }

  /**
   * Aborts the calling test for {@code problem} (a skip), or fails it when servers are required: for what a
   * test needs besides a reachable server (a server binary to start, an administrator's login).
   */
  public static void skipOrFail(String problem) {
    skipOrFail(problem, Boolean.getBoolean(REQUIRE_SERVERS));
  }

  /**
   * A PostgreSQL or MariaDB server and the test database on it. Where the test user or database is missing,
   * {@link #requireReachable()} creates them through the server's administrator account first.
   */
  public static final class DatabaseServer {

    /** The server's name in messages: {@code PostgreSQL} or {@code MariaDB}. */
    public final String name;
    public final String url;
    public final String user;
    public final String password;
    private final String propertyPrefix;
    private final String defaultAdmin;

    private DatabaseServer(String name, String url, String user, String password, String propertyPrefix,
        String defaultAdmin) {
      this.name = name;
      this.url = url;
      this.user = user;
      this.password = password;
      this.propertyPrefix = propertyPrefix;
      this.defaultAdmin = defaultAdmin;
    }

    private static DatabaseServer configured(String name, String id, String defaultUrl, String defaultAdmin) {
      String p = "idempotent.test." + id + ".";
      return new DatabaseServer(name, System.getProperty(p + "url", defaultUrl),
          System.getProperty(p + "user", "idempotent"), System.getProperty(p + "password", "idempotent"), p,
          defaultAdmin);
    }

    /** The same server at another address: for tests of the reach-or-skip logic and of provisioning. */
    public DatabaseServer at(String otherUrl) {
      return new DatabaseServer(name, otherUrl, user, password, propertyPrefix, defaultAdmin);
    }

    /** The administrator account that creates a missing test user and database. */
    public String adminUser() {
      return System.getProperty(propertyPrefix + "adminUser", defaultAdmin);
    }

    public String adminPassword() {
      return System.getProperty(propertyPrefix + "adminPassword", "");
    }

    /**
     * Skips the calling test when the server is unreachable, or fails it when servers are required. The
     * test user and database are created through the administrator account first where they are missing.
     */
    public void requireReachable() {
      TestServers.requireReachable(name + " " + url, this::problem);
    }

    /** As {@link #requireReachable()}, failing rather than skipping when {@code required}; says nothing. */
    public void requireReachable(boolean required) {
      TestServers.requireReachable(name + " " + url, this::problem, required);
    }

    /** Why the server cannot be used, or "" when it can, after creating the test user and database if missing. */
    public String problem() {
      return TestDatabaseAccounts.provision(name, url, user, password, adminUser(), adminPassword());
    }

    /** A connection of its own as the test user, committing each statement. The caller closes it. */
    public Connection connect() throws SQLException {
      return DriverManager.getConnection(url, user, password);
    }

    /**
     * A connection as the server's administrator, for tests that create users of their own. Skips the test,
     * or fails it when servers are required, if the administrator cannot connect. The caller closes it.
     */
    public Connection connectAsAdmin() {
      try {
        return DriverManager.getConnection(url, adminUser(), adminPassword());
      } catch (SQLException e) {
        skipOrFail(name + "'s administrator " + adminUser() + " cannot connect at " + url + " (" + e.getMessage()
            + "); set " + propertyPrefix + "adminUser/adminPassword.");
        throw new AssertionError(e);
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** A Redis server; tests keep to database {@value #DATABASE} and to key prefixes of their own. */
  public static final class RedisServer {

    /** The database index the tests use; nothing else is expected there. */
    public static final int DATABASE = 15;

    public final String host;
    public final int port;

    private RedisServer(String host, int port) {
      this.host = host;
      this.port = port;
    }

    /** The same kind of server at another address: for tests of the reach-or-skip logic. */
    public RedisServer at(String otherHost, int otherPort) {
      return new RedisServer(otherHost, otherPort);
    }

    /** {@code host:port}. */
    public String address() {
      return host + ":" + port;
    }

    /**
     * Skips the calling test when Redis does not answer, or fails it when servers are required. Call it before
     * each test (not in {@code @BeforeAll}), so that every skipped test is reported with the reason.
     */
    public void requireReachable() {
      TestServers.requireReachable("Redis " + address(), this::problem);
    }

    /** As {@link #requireReachable()}, failing rather than skipping when {@code required}; says nothing. */
    public void requireReachable(boolean required) {
      TestServers.requireReachable("Redis " + address(), this::problem, required);
    }

    /** Why Redis cannot be used, or "" when it answers a {@code PING}. */
    public String problem() {
      String unreachable = "Redis is not reachable at " + address();
      String advice = " Start it, or point idempotent.test.redis.host/port elsewhere.";
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(5_000);
        socket.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        String reply = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
            .readLine();
        return "+PONG".equals(reply) ? "" : unreachable + " (it answered " + reply + ")." + advice;
      } catch (IOException e) {
        return unreachable + " (" + e.getMessage() + ")." + advice;
      }
    }

    @Override
    public String toString() {
      return "Redis " + address();
    }
  }

  /**
   * A message broker on {@code host:port} ({@code idempotent.test.<id>.host}, {@code .port}), probed in its own
   * protocol: RabbitMQ must open an AMQP 0-9-1 handshake, NATS must announce JetStream.
   */
  public static final class BrokerServer {

    /** Why the broker at a socket cannot be used, or "" when it can; the socket is connected. */
    interface Probe {
      String problem(Socket socket) throws IOException;
    }

    public final String name;
    public final String host;
    public final int port;
    private final String id;
    private final Probe probe;

    private BrokerServer(String name, String id, int defaultPort, Probe probe) {
      this(name, id, System.getProperty("idempotent.test." + id + ".host", "127.0.0.1"),
          Integer.getInteger("idempotent.test." + id + ".port", defaultPort), probe);
    }

    private BrokerServer(String name, String id, String host, int port, Probe probe) {
      this.name = name;
      this.id = id;
      this.host = host;
      this.port = port;
      this.probe = probe;
    }

    /** The same broker at another address: for tests of the reach-or-skip logic. */
    public BrokerServer at(String otherHost, int otherPort) {
      return new BrokerServer(name, id, otherHost, otherPort, probe);
    }

    /** {@code host:port}. */
    public String address() {
      return host + ":" + port;
    }

    /** Skips the calling test when the broker does not answer, or fails it when servers are required. */
    public void requireReachable() {
      TestServers.requireReachable(toString(), this::problem);
    }

    /** As {@link #requireReachable()}, failing rather than skipping when {@code required}; says nothing. */
    public void requireReachable(boolean required) {
      TestServers.requireReachable(toString(), this::problem, required);
    }

    /** Why the broker cannot be used, or "" when it answers in its protocol. */
    public String problem() {
      String advice = " Start it (.ci/start-servers.sh), or point idempotent.test." + id + ".host/port elsewhere.";
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(5_000);
        String problem = probe.problem(socket);
        return problem.isEmpty() ? "" : name + " at " + address() + " " + problem + "." + advice;
      } catch (IOException e) {
        return name + " is not reachable at " + address() + " (" + e.getMessage() + ")." + advice;
      }
    }

    /** AMQP 0-9-1: the protocol header is answered with a method frame (Connection.Start). */
    static String amqpProblem(Socket socket) throws IOException {
      socket.getOutputStream().write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
      int frameType = socket.getInputStream().read();
      return frameType == 1 ? "" : "did not open an AMQP 0-9-1 connection (first byte " + frameType + ")";
    }

    /** NATS greets with an {@code INFO} line, which says whether JetStream is on. */
    static String natsProblem(Socket socket) throws IOException {
      String info = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
          .readLine();
      if (info == null || !info.startsWith("INFO ")) {
        return "did not greet as NATS (" + info + ")";
      }
      return info.replace(" ", "").contains("\"jetstream\":true") ? "" : "runs without JetStream (start it with -js)";
    }

    @Override
    public String toString() {
      return name + " " + address();
    }
  }
}
