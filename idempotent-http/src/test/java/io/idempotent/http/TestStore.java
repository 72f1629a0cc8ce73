package io.idempotent.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testservers.TestServers;
import java.util.UUID;

/**
 * The stores the HTTP tests run on, each opened fresh for a test and closed with it (its pool too). A
 * server that cannot be reached skips the test, or fails it when servers are required.
 */
enum TestStore {
  CAFFEINE, H2, POSTGRES, REDIS;

  private static final TestServers.DatabaseServer POSTGRES_SERVER = TestServers.POSTGRES;
  private static final TestServers.RedisServer REDIS_SERVER = TestServers.REDIS;

  /** An open store and what must be closed with it. */
  record Opened(IdempotencyStore store, AutoCloseable resources) implements AutoCloseable {
    @Override
    public void close() {
      store.close();
      Stopping.unchecked(resources::close);
    }
  }

  /** Opens the store (H2 in {@code h2File}, a path without the .mv.db suffix). */
  Opened open(String h2File) {
    switch (this) {
      case CAFFEINE:
        return new Opened(CaffeineIdempotencyStore.builder().build(), () -> {});
      case H2: {
        HikariDataSource pool = pool("jdbc:h2:file:" + h2File + ";LOCK_TIMEOUT=10000", "sa", "");
        return new Opened(JdbiIdempotencyStore.builder(pool).createSchema(true).build(), pool);
      }
      case POSTGRES: {
        POSTGRES_SERVER.requireReachable();
        HikariDataSource pool = pool(POSTGRES_SERVER.url, POSTGRES_SERVER.user, POSTGRES_SERVER.password);
        return new Opened(JdbiIdempotencyStore.builder(pool).table("http_idempotency").createSchema(true).build(),
            pool);
      }
      case REDIS: {
        REDIS_SERVER.requireReachable();
        return new Opened(RedisIdempotencyStore.builder().host(REDIS_SERVER.host).port(REDIS_SERVER.port)
            .database(TestServers.RedisServer.DATABASE)
            .prefix("idempotent-test:http:" + UUID.randomUUID().toString().substring(0, 8) + ":").build(), () -> {});
      }
      default:
        throw new AssertionError(this);
    }
  }

  private static HikariDataSource pool(String url, String user, String password) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(24);
    c.setPoolName("http-test");
    return new HikariDataSource(c);
  }
}
