package io.idempotent.jdbi;

import java.util.Locale;
import java.util.Optional;

/**
 * The SQL dialects the table store speaks: the databases its tests run on. MySQL is not one of them
 * (no test runs against a MySQL server), so a connection that reports MySQL is refused. Normally detected from the connection's product name; set it
 * explicitly with {@link JdbiIdempotencyStore.Builder#dialect(SqlDialect)} when detection is not wanted.
 * Immutable and thread-safe.
 */
public enum SqlDialect {
  /** PostgreSQL 9.5 or later: one {@code INSERT … ON CONFLICT … RETURNING} statement claims and reads. */
  POSTGRESQL,
  /** MariaDB 10.5 or later: one {@code INSERT … ON DUPLICATE KEY UPDATE … RETURNING} statement claims and reads. */
  MARIADB,
  /**
   * H2 2.x, embedded or server: a read of the live row; when there is none, an {@code INSERT}, or for a key
   * whose expired row is still there, {@code MERGE … USING} and a read.
   */
  H2;

  /**
   * The dialect of a database by its JDBC product name ({@code DatabaseMetaData#getDatabaseProductName});
   * empty for any other database, MySQL included.
   */
  public static Optional<SqlDialect> fromProductName(String productName) {
    String p = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
    if (p.contains("postgres")) {
      return Optional.of(POSTGRESQL);
    }
    if (p.contains("mariadb")) {
      return Optional.of(MARIADB);
    }
    if (p.equals("h2")) {
      return Optional.of(H2);
    }
    return Optional.empty();
  }

  /** The name of the DDL resource for this dialect, e.g. {@code io/idempotent/jdbi/schema-postgresql.sql}. */
  public String schemaResource() {
    return "io/idempotent/jdbi/schema-" + name().toLowerCase(Locale.ROOT) + ".sql";
  }
}
