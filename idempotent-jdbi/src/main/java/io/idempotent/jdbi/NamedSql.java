package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One SQL statement written with named parameters ({@code :key}), prepared as plain JDBC with positional
 * ones. The store's statements run on plain JDBC: per call they allocate what the driver allocates and
 * nothing else. Parsed once; immutable and thread-safe.
 */
final class NamedSql {

  private final String sql;
  private final String jdbcSql;
  /** The parameter name at each position, 1-based position = index + 1. */
  private final String[] positions;

  private NamedSql(String sql, String jdbcSql, String[] positions) {
    this.sql = sql;
    this.jdbcSql = jdbcSql;
    this.positions = positions;
  }

  /** Parses {@code :name} parameters outside quoted text; {@code ::} (a PostgreSQL cast) is left alone. */
  static NamedSql of(String sql) {
    StringBuilder jdbc = new StringBuilder(sql.length());
    List<String> names = new ArrayList<>();
    boolean quoted = false;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      } else if (!quoted && c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
        jdbc.append("::");
        i++;
        continue;
      } else if (!quoted && c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
        int end = i + 1;
        while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
          end++;
        }
        names.add(sql.substring(i + 1, end));
        jdbc.append('?');
        i = end - 1;
        continue;
      }
      jdbc.append(c);
    }
    return new NamedSql(sql, jdbc.toString(), names.toArray(new String[0]));
  }

  PreparedStatement prepare(Connection c) throws SQLException {
    return c.prepareStatement(jdbcSql);
  }

  void set(PreparedStatement ps, String name, @Nullable String value) throws SQLException {
    for (int i = first(name); i >= 0; i = next(name, i + 1)) {
      ps.setString(i + 1, value);
    }
  }

  void set(PreparedStatement ps, String name, long value) throws SQLException {
    for (int i = first(name); i >= 0; i = next(name, i + 1)) {
      ps.setLong(i + 1, value);
    }
  }

  /** Binds {@code values} as a PostgreSQL {@code text[]}. */
  void setTexts(PreparedStatement ps, String name, @Nullable String[] values) throws SQLException {
    java.sql.Array array = ps.getConnection().createArrayOf("text", values);
    for (int i = first(name); i >= 0; i = next(name, i + 1)) {
      ps.setArray(i + 1, array);
    }
  }

  /** The first position of {@code :name}; a name the statement does not have is a programming error. */
  private int first(String name) {
    int i = next(name, 0);
    if (i < 0) {
      throw new IllegalArgumentException("No parameter :" + name + " in " + sql);
    }
    return i;
  }

  private int next(String name, int from) {
    for (int i = from; i < positions.length; i++) {
      if (positions[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The parameter names in the order of their positions. */
  List<String> parameters() {
    return List.of(positions);
  }

  String jdbcSql() {
    return jdbcSql;
  }

  /**
   * A failed statement as the store reports it: the SQL and the driver's message, never the bound
   * values (they hold keys and results; see docs/DESIGN.md, Outcomes). The SQLException stays the
   * cause, with its SQLState.
   */
  IdempotencyStoreException failure(SQLException e) {
    return failure(e, sql);
  }

  static IdempotencyStoreException failure(SQLException e, String sql) {
    return new IdempotencyStoreException("SQL statement failed (SQLState " + e.getSQLState() + "): "
        + e.getMessage() + " [statement:\"" + sql + "\"]" + (isMissingTable(e) ? MISSING_TABLE : ""), e);
  }

  /** What to do when the store's table is missing: the statements of a store touch no other table. */
  private static final String MISSING_TABLE = "; the idempotency store's table does not exist: build the store"
      + " with createSchema(true) (idempotent.<store>.create-schema=true in properties), or create the table"
      + " with the DDL shipped in idempotent-jdbi (io/idempotent/jdbi/schema-h2.sql, schema-postgresql.sql,"
      + " schema-mariadb.sql)";

  /** PostgreSQL's undefined table (42P01); MariaDB's and H2's table not found (42S02; H2 also 42S03, 42S04). */
  private static boolean isMissingTable(SQLException e) {
    String state = e.getSQLState();
    return "42P01".equals(state) || "42S02".equals(state) || "42S03".equals(state) || "42S04".equals(state);
  }

  /** The SQLState of the first {@link SQLException} in {@code e}'s causes that has one, or null. */
  static @Nullable String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }
}
