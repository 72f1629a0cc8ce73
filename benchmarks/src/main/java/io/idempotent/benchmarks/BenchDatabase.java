package io.idempotent.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The databases the SQL benchmarks run on. PostgreSQL is the server of the tests
 * ({@code idempotent_test} on 127.0.0.1:5432 unless {@code idempotent.bench.postgres.url/user/password}
 * say otherwise); H2 runs in the benchmark's process, as a file (the embedded default) or in memory.
 */
public enum BenchDatabase {
  h2file,
  h2mem,
  postgres;

  /**
   * A HikariCP pool on a database of its own for this run (H2), or on the server (PostgreSQL); with
   * {@code counts} (H2 only, else null), its connections are made through it.
   */
  HikariDataSource pool(int size, Path h2Directory, JdbcCounts counts) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("bench-" + name());
    hc.setMaximumPoolSize(size);
    switch (this) {
      // as the store's provider configures its embedded default
      case h2file -> hc.setJdbcUrl(
          "jdbc:h2:file:" + h2Directory.resolve("bench").toAbsolutePath() + ";LOCK_TIMEOUT=10000;WRITE_DELAY=0");
      case h2mem -> hc.setJdbcUrl("jdbc:h2:mem:" + h2Directory.getFileName() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
      case postgres -> {
        hc.setJdbcUrl(System.getProperty("idempotent.bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/idempotent_test"));
        hc.setUsername(System.getProperty("idempotent.bench.postgres.user", "idempotent"));
        hc.setPassword(System.getProperty("idempotent.bench.postgres.password", "idempotent"));
      }
    }
    if (this != postgres) {
      hc.setUsername("sa");
      hc.setPassword("");
      if (counts != null) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(hc.getJdbcUrl());
        h2.setUser("sa");
        h2.setPassword("");
        hc.setJdbcUrl(null);
        hc.setDataSource(counts.wrap(h2));
      }
    } else if (counts != null) {
      throw new IllegalArgumentException("PostgreSQL is counted on the wire (WireTap), not through JDBC");
    }
    return new HikariDataSource(hc);
  }
}
