package io.idempotent.testservers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes sure the test database and its user exist on a PostgreSQL or MariaDB server: when the tests cannot
 * log in, they are created through the server's administrator account (PostgreSQL {@code postgres}, MariaDB
 * {@code root} with an empty password, as the servers come installed), and what was created is said once on
 * the console. Test JVMs running at the same time take a server-side lock around the creation, and every
 * step checks what exists first, so a second JVM finds the work done. Existing users keep their passwords.
 * Needs the server's JDBC driver on the class path. Used through {@link TestServers.DatabaseServer}.
 * Thread-safe.
 */
final class TestDatabaseAccounts {

  private static final Pattern URL = Pattern.compile("^(jdbc:(postgresql|mariadb)://[^/?;]*)/([^/?;]*)(.*)$");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private TestDatabaseAccounts() {}

  /**
   * Why {@code user} cannot work in the database of {@code url} ("" when it can), after creating the user
   * and the database as {@code adminUser} where they were missing. {@code label} names the server in messages.
   */
  static String provision(String label, String url, String user, String password, String adminUser,
      String adminPassword) {
    SQLException first;
    try (Connection c = DriverManager.getConnection(url, user, password)) {
      c.isValid(5);
      return "";
    } catch (SQLException e) {
      first = e;
    }
    String kind = url.startsWith("jdbc:postgresql:") ? "postgres" : "mariadb";
    String unreachable = label + " is not reachable at " + url + " as user " + user + " (" + first.getMessage() + ")."
        + " Start it, or point idempotent.test." + kind + ".url/user/password elsewhere.";
    String state = first.getSQLState();
    if (state != null && state.startsWith("08")) {
      return unreachable; // no server answers there: its administrator could not log in either
    }
    Matcher m = URL.matcher(url);
    if (!m.matches() || !NAME.matcher(m.group(3)).matches() || !NAME.matcher(user).matches()) {
      return unreachable; // not a plain server URL of ours: nothing to create
    }
    boolean postgres = m.group(2).equals("postgresql");
    String database = m.group(3);
    String adminUrl = m.group(1) + (postgres ? "/postgres" : "/");
    List<String> created;
    try (Connection admin = DriverManager.getConnection(adminUrl, adminUser, adminPassword)) {
      created = postgres
          ? createOnPostgres(admin, m.group(1), database, user, password, adminUser, adminPassword)
          : createOnMariaDb(admin, database, user, password);
    } catch (SQLException e) {
      return unreachable + " Its administrator " + adminUser + " could not create the user and database either ("
          + e.getMessage() + ").";
    }
    if (!created.isEmpty()) {
      System.err.println("[idempotent tests] " + label + " at " + m.group(1).replaceFirst("^jdbc:\\w+://", "")
          + ": created " + String.join(" and ", created) + " as " + adminUser + ".");
    }
    try (Connection c = DriverManager.getConnection(url, user, password)) {
      c.isValid(5);
      return "";
    } catch (SQLException e) {
      return label + " is not reachable at " + url + " as user " + user + " (" + e.getMessage() + "), even after"
          + " checking the user and database as " + adminUser + ".";
    }
  }

  private static List<String> createOnPostgres(Connection admin, String server, String database, String user,
      String password, String adminUser, String adminPassword) throws SQLException {
    List<String> created = new ArrayList<>();
    try (Statement s = admin.createStatement()) {
      s.execute("SELECT pg_advisory_lock(7243051)"); // released when the session ends
      if (!exists(admin, "SELECT 1 FROM pg_roles WHERE rolname = ?", user)) {
        s.execute("CREATE ROLE \"" + user + "\" LOGIN PASSWORD '" + password.replace("'", "''") + "'");
        created.add("user " + user);
      }
      if (!exists(admin, "SELECT 1 FROM pg_database WHERE datname = ?", database)) {
        // the owner may create tables in its public schema (PostgreSQL 15 and later grant nothing to others)
        s.execute("CREATE DATABASE \"" + database + "\" OWNER \"" + user + "\"");
        created.add("database " + database);
      } else if (!created.isEmpty()) {
        s.execute("GRANT ALL PRIVILEGES ON DATABASE \"" + database + "\" TO \"" + user + "\"");
        try (Connection inDatabase = DriverManager.getConnection(server + "/" + database, adminUser, adminPassword);
            Statement g = inDatabase.createStatement()) {
          g.execute("GRANT ALL ON SCHEMA public TO \"" + user + "\"");
        }
      }
    }
    return created;
  }

  private static List<String> createOnMariaDb(Connection admin, String database, String user, String password)
      throws SQLException {
    List<String> created = new ArrayList<>();
    try (Statement s = admin.createStatement()) {
      s.execute("SELECT GET_LOCK('idempotent_test_accounts', 60)"); // released when the session ends
      if (!exists(admin, "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", database)) {
        s.execute("CREATE DATABASE IF NOT EXISTS `" + database + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        created.add("database " + database);
      }
      String quotedPassword = "'" + password.replace("\\", "\\\\").replace("'", "''") + "'";
      boolean userCreated = false;
      // a TCP login from this machine may match any of these hosts, depending on name resolution
      for (String host : List.of("localhost", "127.0.0.1", "::1")) {
        String account = "'" + user + "'@'" + host + "'";
        if (!exists(admin, "SELECT 1 FROM mysql.user WHERE User = ? AND Host = '" + host + "'", user)) {
          s.execute("CREATE USER IF NOT EXISTS " + account + " IDENTIFIED BY " + quotedPassword);
          userCreated = true;
        }
        s.execute("GRANT ALL PRIVILEGES ON `" + database + "`.* TO " + account);
      }
      if (userCreated) {
        created.add(0, "user " + user);
      }
    }
    return created;
  }

  private static boolean exists(Connection c, String sql, String value) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setString(1, value);
      try (ResultSet r = p.executeQuery()) {
        return r.next();
      }
    }
  }
}
