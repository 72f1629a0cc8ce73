package io.idempotent.testservers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Reaching a server or skipping: a server nobody listens on skips its tests (or fails them when servers are
 * required), and a missing test user and database are created through the administrator account.
 */
class TestServersTest {

  static Stream<TestServers.DatabaseServer> databaseServers() {
    return Stream.of(TestServers.POSTGRES, TestServers.MARIADB);
  }

  private static TestServers.DatabaseServer closedPort(TestServers.DatabaseServer db) {
    return db.at(db.url.replaceFirst("//[^/]+/", "//127.0.0.1:1/"));
  }

  @Test
  void requireReachable_unreachableServer_skipsEveryTestButProbesOnce() {
    List<String> probes = new ArrayList<>();
    String server = "Nowhere " + UUID.randomUUID();
    for (int test = 0; test < 3; test++) {
      assertThatThrownBy(() -> TestServers.requireReachable(server, () -> {
        probes.add("probe");
        return "Nowhere is not reachable at 127.0.0.1:1.";
      }, false)).isInstanceOf(TestAbortedException.class).hasMessage("Skipped: Nowhere is not reachable at 127.0.0.1:1.");
    }
    assertThat(probes).hasSize(1);
  }

  @Test
  void requireReachable_unreachableServerWhenRequired_fails() {
    String server = "Nowhere " + UUID.randomUUID();
    assertThatThrownBy(() -> TestServers.requireReachable(server, () -> "Nowhere is down.", true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("Nowhere is down.")
        .hasMessageContaining("idempotent.requireServers=true");
  }

  @Test
  void requireReachable_reachableServer_letsTheTestRun() {
    String server = "Here " + UUID.randomUUID();
    TestServers.requireReachable(server, () -> "", true);
    assertThat(TestServers.problem(server, () -> "never probed again")).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("databaseServers")
  void database_closedPort_skipsWithTheAddress(TestServers.DatabaseServer db) {
    TestServers.DatabaseServer closed = closedPort(db);
    assertThatThrownBy(() -> closed.requireReachable(false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageStartingWith("Skipped: " + db.name + " is not reachable at ")
        .hasMessageContaining("127.0.0.1:1");
  }

  @ParameterizedTest
  @MethodSource("databaseServers")
  void database_closedPortWhenServersAreRequired_fails(TestServers.DatabaseServer db) {
    TestServers.DatabaseServer closed = closedPort(db);
    assertThatThrownBy(() -> closed.requireReachable(true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("idempotent.requireServers=true");
  }

  @ParameterizedTest
  @MethodSource("databaseServers")
  void provision_missingUserAndDatabase_createsThemOnce_evenFromConcurrentCallers(TestServers.DatabaseServer db)
      throws Exception {
    db.requireReachable();
    String name = "idempotent_provision_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    String url = db.url.replaceFirst("/idempotent_test", "/" + name);
    assertThat(url).as("the test URL names its database").isNotEqualTo(db.url);
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> problems = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        problems.add(callers.submit(() ->
            TestDatabaseAccounts.provision(db.name, url, name, "secret", db.adminUser(), db.adminPassword())));
      }
      for (Future<String> problem : problems) {
        assertThat(problem.get()).isEmpty();
      }
      try (Connection c = DriverManager.getConnection(url, name, "secret"); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE provisioned (id INT PRIMARY KEY)");
        s.execute("INSERT INTO provisioned VALUES (1)");
      }
      assertThat(TestDatabaseAccounts.provision(db.name, url, name, "secret", db.adminUser(), db.adminPassword()))
          .as("a second time finds everything there").isEmpty();
    } finally {
      callers.shutdownNow();
      drop(db, name);
    }
  }

  private static void drop(TestServers.DatabaseServer db, String name) throws Exception {
    try (Connection admin = db.connectAsAdmin(); Statement s = admin.createStatement()) {
      if (db == TestServers.POSTGRES) {
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        s.execute("DROP ROLE IF EXISTS " + name);
      } else {
        s.execute("DROP DATABASE IF EXISTS " + name);
        for (String host : List.of("localhost", "127.0.0.1", "::1")) {
          s.execute("DROP USER IF EXISTS '" + name + "'@'" + host + "'");
        }
      }
    }
  }

  @Test
  void redis_closedPort_skipsWithTheAddress() {
    TestServers.RedisServer closed = TestServers.REDIS.at("127.0.0.1", 1);
    assertThat(closed.problem()).startsWith("Redis is not reachable at 127.0.0.1:1");
    assertThatThrownBy(() -> closed.requireReachable(false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageStartingWith("Skipped: Redis is not reachable at 127.0.0.1:1");
  }

  @Test
  void redis_closedPortWhenServersAreRequired_fails() {
    TestServers.RedisServer closed = TestServers.REDIS.at("127.0.0.1", 1);
    assertThatThrownBy(() -> closed.requireReachable(true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("idempotent.requireServers=true");
  }

  @Test
  void redis_runningServer_answersItsPing() {
    TestServers.REDIS.requireReachable();
    assertThat(TestServers.REDIS.problem()).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("databaseServers")
  void database_runningServer_letsTheTestUserIn(TestServers.DatabaseServer db) throws Exception {
    db.requireReachable();
    try (Connection c = db.connect()) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  @Test
  void brokers_closedPort_skipWithTheAddress_andFailWhenServersAreRequired() {
    for (TestServers.BrokerServer broker : new TestServers.BrokerServer[] {TestServers.RABBITMQ, TestServers.NATS}) {
      TestServers.BrokerServer closed = broker.at("127.0.0.1", 1);
      assertThat(closed.problem()).startsWith(broker.name + " is not reachable at 127.0.0.1:1");
      assertThatThrownBy(() -> closed.requireReachable(true)).isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("Servers are required");
    }
  }

  @Test
  void brokers_areProbedInTheirOwnProtocol_soAnotherServerOnThePortIsNoBroker() throws Exception {
    // a server of another protocol: it answers every connection with an HTTP status line and hangs up
    try (java.net.ServerSocket other = new java.net.ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> {
        while (!other.isClosed()) {
          try (java.net.Socket s = other.accept()) {
            s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          } catch (java.io.IOException e) {
            return; // closed
          }
        }
      });
      answering.setDaemon(true);
      answering.start();
      int port = other.getLocalPort();
      assertThat(TestServers.RABBITMQ.at("127.0.0.1", port).problem())
          .startsWith("RabbitMQ at 127.0.0.1:" + port + " did not open an AMQP 0-9-1 connection");
      assertThat(TestServers.NATS.at("127.0.0.1", port).problem())
          .startsWith("NATS at 127.0.0.1:" + port + " did not greet as NATS (HTTP/1.1 400 Bad Request)");
    }
  }

  @Test
  void brokers_running_answerInTheirProtocols() {
    TestServers.RABBITMQ.requireReachable();
    TestServers.NATS.requireReachable();
    assertThat(TestServers.RABBITMQ.problem()).isEmpty();
    assertThat(TestServers.NATS.problem()).isEmpty();
  }
}
