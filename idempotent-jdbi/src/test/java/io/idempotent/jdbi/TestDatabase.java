package io.idempotent.jdbi;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testservers.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * A database the tests run on: the embedded H2 (always there), or the kit's PostgreSQL or MariaDB server
 * ({@link TestServers}, which reaches it or skips the test). Each database has one shared pool and one
 * {@code Jdbi}; tests that need separate "instances" make pools of their own.
 */
public final class TestDatabase {

  public static final TestDatabase H2 = new TestDatabase("H2",
      "jdbc:h2:file:./target/h2/idempotent-test;LOCK_TIMEOUT=10000", "sa", "", null);
  public static final TestDatabase POSTGRES = new TestDatabase(TestServers.POSTGRES);
  public static final TestDatabase MARIADB = new TestDatabase(TestServers.MARIADB);

  /** All databases, for parameterized tests: H2 always runs, a server only where reachable. */
  public static java.util.stream.Stream<TestDatabase> all() {
    return java.util.stream.Stream.of(H2, POSTGRES, MARIADB);
  }

  /** The servers shared by several application instances. */
  public static java.util.stream.Stream<TestDatabase> servers() {
    return java.util.stream.Stream.of(POSTGRES, MARIADB);
  }

  /** The embedded database and PostgreSQL, for tests of what sits in front of the table store. */
  public static java.util.stream.Stream<TestDatabase> h2AndPostgres() {
    return java.util.stream.Stream.of(H2, POSTGRES);
  }

  private static final java.util.Set<TestDatabase> SCHEMA = ConcurrentHashMap.newKeySet();

  /** A store on the shared pool and default table, creating the schema on first use. */
  public JdbiIdempotencyStore.Builder storeBuilder() {
    return JdbiIdempotencyStore.builder(jdbi()).createSchema(SCHEMA.add(this));
  }

  private static final Map<TestDatabase, HikariDataSource> POOLS = new ConcurrentHashMap<>();

  public final String name;
  public final String url;
  public final String user;
  public final String password;
  /** The server behind it; null for the embedded database. */
  private final TestServers.DatabaseServer server;

  private TestDatabase(String name, String url, String user, String password, TestServers.DatabaseServer server) {
    this.name = name;
    this.url = url;
    this.user = user;
    this.password = password;
    this.server = server;
  }

  private TestDatabase(TestServers.DatabaseServer server) {
    this(server.name, server.url, server.user, server.password, server);
  }

  /** Skips the calling test when the server is unreachable, or fails it when servers are required. */
  public void requireReachable() {
    if (server != null) {
      server.requireReachable();
    }
  }

  /** The database's shared pool (20 connections), opened on first use. */
  public HikariDataSource pool() {
    return POOLS.computeIfAbsent(this, d -> d.newPool(20, "shared"));
  }

  /** One Jdbi per database: joined mode needs the store and the application on the same Jdbi instance. */
  public Jdbi jdbi() {
    return JDBIS.computeIfAbsent(this, d -> Jdbi.create(d.pool()));
  }

  private static final Map<TestDatabase, Jdbi> JDBIS = new ConcurrentHashMap<>();

  /** A pool of its own, as a separate application instance would have. The caller closes it. */
  public HikariDataSource newPool(int size, String name) {
    return newPool(size, name, hc -> { });
  }

  /** A pool of its own with settings of its own ({@code settings} sees the defaults first). The caller closes it. */
  public HikariDataSource newPool(int size, String name, java.util.function.Consumer<HikariConfig> settings) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("test-" + this.name + "-" + name);
    hc.setJdbcUrl(url);
    hc.setUsername(user);
    hc.setPassword(password);
    hc.setMaximumPoolSize(size);
    settings.accept(hc);
    return new HikariDataSource(hc);
  }

  /** A connection of its own, outside every pool, committing each statement. The caller closes it. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  /** A connection as the server's administrator (see {@link TestServers.DatabaseServer#connectAsAdmin()}). */
  public Connection connectAsAdmin() {
    return server.connectAsAdmin();
  }

  /** A connection of its own as {@code user}. The caller closes it. */
  public Connection connect(String otherUser, String otherPassword) throws SQLException {
    return DriverManager.getConnection(url, otherUser, otherPassword);
  }

  /** The dialect of this database. */
  public SqlDialect dialect() {
    return SqlDialect.fromProductName(name).orElseThrow();
  }

  @Override
  public String toString() {
    return name;
  }
}
