package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/** What {@link JdbiIdempotencyStore.Builder#build()} finds out about the database and the pool it is given. */
final class DatabaseProbe {

  private static final System.Logger LOG = System.getLogger("io.idempotent.jdbi");

  private DatabaseProbe() {}

  /** The dialect of the database {@code jdbi} connects to, from the connection's product name and version. */
  static SqlDialect detect(Jdbi jdbi) {
    try (Handle h = jdbi.open()) {
      var meta = h.getConnection().getMetaData();
      String product = meta.getDatabaseProductName();
      SqlDialect d = SqlDialect.fromProductName(product).orElseThrow(() -> new IdempotencyConfigurationException(
          "Unsupported database '" + product + "'; " + JdbiIdempotencyStore.SUPPORTED_DATABASES));
      if (d == SqlDialect.MARIADB && !atLeast(meta.getDatabaseMajorVersion(), meta.getDatabaseMinorVersion(), 10, 5)) {
        throw new IdempotencyConfigurationException("MariaDB " + meta.getDatabaseProductVersion()
            + " is not supported: the store needs MariaDB 10.5 or later (INSERT … RETURNING)");
      }
      return d;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the database's metadata to detect its dialect", e);
    }
  }

  private static boolean atLeast(int major, int minor, int wantMajor, int wantMinor) {
    return major > wantMajor || (major == wantMajor && minor >= wantMinor);
  }

  /**
   * A HikariCP pool checks an idle connection on the thread that borrows it, and no interrupt ends that
   * check: on a server that stopped answering, a borrower waits as long as the pool's connection timeout
   * (30 s by default), whatever the store's operation timeout. Said once, when the store is built.
   */
  static void warnIfThePoolWaitsLonger(@Nullable DataSource dataSource, Duration operationTimeout) {
    if (dataSource == null || !dataSource.getClass().getName().equals("com.zaxxer.hikari.HikariDataSource")) {
      return;
    }
    long poolMillis;
    try {
      poolMillis = (Long) dataSource.getClass().getMethod("getConnectionTimeout").invoke(dataSource);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return;
    }
    if (poolMillis == 0 || poolMillis > operationTimeout.toMillis()) {
      LOG.log(Level.WARNING, "The idempotency store's pool (" + dataSource + ") waits up to "
          + (poolMillis == 0 ? "forever" : poolMillis + " ms") + " for a connection, longer than the store's"
          + " operation timeout of " + operationTimeout + ": on a database server that stops answering, the"
          + " pool checks its idle connections on the calling thread for that long before the store can give"
          + " up. Set the pool's connectionTimeout to the operation timeout or less (Spring Boot:"
          + " spring.datasource.hikari.connection-timeout), or give the store a pool of its own");
    }
  }
}
