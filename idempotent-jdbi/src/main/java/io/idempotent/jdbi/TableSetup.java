package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.List;

/** Creates the store's table when it is missing and checks one that exists. */
final class TableSetup {

  private static final System.Logger LOG = System.getLogger("io.idempotent.jdbi");

  private final Connections connections;
  private final TableStatements statements;
  private final SqlDialect dialect;

  TableSetup(Connections connections, TableStatements statements, SqlDialect dialect) {
    this.connections = connections;
    this.statements = statements;
    this.dialect = dialect;
  }

  /** See {@link JdbiIdempotencyStore#createSchema()}. */
  void createSchema() {
    if (tableExists()) {
      return;
    }
    List<String> ddl = SchemaScript.statements(dialect, statements.table);
    for (int attempt = 1; ; attempt++) {
      try {
        connections.run(c -> {
          try (var statement = c.createStatement()) {
            for (String sql : ddl) {
              try {
                statement.execute(sql);
              } catch (SQLException e) {
                throw NamedSql.failure(e, sql);
              }
            }
          }
          return ddl.size();
        });
        return;
      } catch (RuntimeException e) {
        // instances starting together may race on CREATE … IF NOT EXISTS (PostgreSQL's catalog is not
        // locked by it); the statements succeed once the winner has committed
        if (attempt >= 3) {
          throw e;
        }
      }
    }
  }

  /**
   * Refuses an existing table whose key column would let distinct keys share a row (a collation that
   * ignores case or trailing spaces) or is not the primary key, and (PostgreSQL, H2) one made by an earlier
   * version without the {@code purge_after} column; the message gives the DDL that fixes it.
   */
  void checkKeyColumn() {
    String problem;
    try {
      problem = connections.run(c -> {
        String layout = statements.layoutProblem(c); // a table of another shape first: its key column is moot
        return layout != null ? layout : statements.keyColumnProblem(c);
      });
    } catch (RuntimeException e) {
      // an unreachable database must not stop the application from starting: calls fail closed until
      // it is back, and the table is checked by the next start
      LOG.log(Level.WARNING, "Could not check the key column of the idempotency table "
          + statements.table.qualified(), e);
      return;
    }
    if (problem != null) {
      throw new IdempotencyConfigurationException("The idempotency table " + statements.table.qualified()
          + " cannot be used: " + problem);
    }
  }

  /** Whether the table can be read: a query that returns no row, so it costs no scan. */
  private boolean tableExists() {
    String sql = "SELECT 1 FROM " + statements.table.qualified() + " WHERE 1 = 0";
    try {
      return connections.run(c -> {
        try (var statement = c.createStatement()) {
          statement.executeQuery(sql); // closing the statement closes its result set
          return true;
        }
      });
    } catch (RuntimeException e) {
      return false; // missing (or unreadable: creating it then reports what is wrong)
    }
  }
}
