package io.idempotent.jdbi;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The HikariCP pool {@link JdbiStoreProvider} builds from properties. The only class of this module that
 * names HikariCP's types: it is loaded once {@link OptionalLibraries#requirePool()} found them, so the
 * provider itself loads without HikariCP (an optional dependency).
 */
final class ProviderPool {

  private ProviderPool() {
  }

  /**
   * Opens a pool and its first connection.
   *
   * @return the pool, which is also an {@link AutoCloseable} that closes it
   * @throws RuntimeException HikariCP's own, when no connection can be made
   */
  static DataSource open(String jdbcUrl, @Nullable String user, @Nullable String password, int maximumSize,
      Duration operationTimeout) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("idempotent-jdbi");
    hc.setJdbcUrl(jdbcUrl);
    if (user != null) {
      hc.setUsername(user);
    }
    if (password != null) {
      hc.setPassword(password);
    }
    hc.setMaximumPoolSize(maximumSize);
    // the pool gives up where the store would: its own message (pool name, active, idle, waiting) then
    // says why; a connection is checked within half of it (HikariCP wants that below its wait, and 250 ms at least)
    long millis = Math.max(250, operationTimeout.toMillis());
    hc.setConnectionTimeout(millis);
    hc.setValidationTimeout(Math.max(250, Math.min(5_000, millis / 2)));
    return new HikariDataSource(hc);
  }

  /** Closes a pool {@link #open} returned. */
  static void close(DataSource pool) {
    ((HikariDataSource) pool).close();
  }
}
