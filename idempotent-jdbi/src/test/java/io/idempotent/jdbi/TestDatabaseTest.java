package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.testkit.TestDatabaseAccounts;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The test support itself: a server nobody listens on skips its tests (or fails them when servers are
 * required), and a missing test user and database are created through the administrator account.
 */
class TestDatabaseTest {

  private static TestDatabase closedPort(TestDatabase db) {
    return db.at(db.url.replaceFirst("//[^/]+/", "//127.0.0.1:1/"));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void requireReachable_closedPort_skipsWithTheAddress(TestDatabase db) {
    TestDatabase closed = closedPort(db);
    assertThatThrownBy(() -> closed.requireReachable(false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageStartingWith("Skipped: " + db.name + " is not reachable at ")
        .hasMessageContaining("127.0.0.1:1");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void requireReachable_closedPortWhenServersAreRequired_fails(TestDatabase db) {
    TestDatabase closed = closedPort(db);
    assertThatThrownBy(() -> closed.requireReachable(true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("idempotent.requireServers=true");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#servers")
  void provision_missingUserAndDatabase_createsThemOnce_evenFromConcurrentCallers(TestDatabase db) throws Exception {
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

  private static void drop(TestDatabase db, String name) throws Exception {
    try (Connection admin = db.connectAsAdmin(); Statement s = admin.createStatement()) {
      if (db == TestDatabase.POSTGRES) {
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
}
