package io.idempotent.spring;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.testservers.TestServers;
import java.nio.file.Path;
import java.util.UUID;

/** The databases the Spring tests run on: an H2 file of the test's own, and the PostgreSQL test server. */
enum SpringDatabase {
  H2, POSTGRES;

  /** A pool on this database (H2 in {@code dir}); a server that cannot be reached skips the test. */
  HikariDataSource open(Path dir) {
    HikariConfig c = new HikariConfig();
    switch (this) {
      case H2 -> {
        c.setJdbcUrl("jdbc:h2:file:" + dir.resolve("spring-" + UUID.randomUUID()) + ";LOCK_TIMEOUT=10000");
        c.setUsername("sa");
        c.setPassword("");
      }
      case POSTGRES -> {
        TestServers.POSTGRES.requireReachable();
        c.setJdbcUrl(TestServers.POSTGRES.url);
        c.setUsername(TestServers.POSTGRES.user);
        c.setPassword(TestServers.POSTGRES.password);
      }
      default -> throw new AssertionError(this);
    }
    c.setMaximumPoolSize(8);
    c.setPoolName("spring-test-" + name().toLowerCase(java.util.Locale.ROOT));
    return new HikariDataSource(c);
  }

  /** A table name no other test uses. */
  static String uniqueName(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }
}
