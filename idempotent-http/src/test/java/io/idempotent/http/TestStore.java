package io.idempotent.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.TestDatabaseAccounts;
import io.idempotent.testkit.TestServers;
import java.util.UUID;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * The stores the HTTP tests run on, each opened fresh for a test and closed with it (its pool too). A
 * server that cannot be reached skips the test, or fails it when servers are required.
 */
enum TestStore {
  CAFFEINE, H2, POSTGRES, REDIS;

  static final String POSTGRES_URL =
      System.getProperty("idempotent.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/idempotent_test");
  static final String POSTGRES_USER = System.getProperty("idempotent.test.postgres.user", "idempotent");
  static final String POSTGRES_PASSWORD = System.getProperty("idempotent.test.postgres.password", "idempotent");
  static final String REDIS_HOST = System.getProperty("idempotent.test.redis.host", "127.0.0.1");
  static final int REDIS_PORT = Integer.getInteger("idempotent.test.redis.port", 6379);

  /** An open store and what must be closed with it. */
  record Opened(IdempotencyStore store, AutoCloseable resources) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      store.close();
      resources.close();
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
        TestServers.requireReachable("PostgreSQL " + POSTGRES_URL, () -> TestDatabaseAccounts.provision("PostgreSQL",
            POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD,
            System.getProperty("idempotent.test.postgres.adminUser", "postgres"),
            System.getProperty("idempotent.test.postgres.adminPassword", "")));
        HikariDataSource pool = pool(POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD);
        return new Opened(JdbiIdempotencyStore.builder(pool).table("http_idempotency").createSchema(true).build(),
            pool);
      }
      case REDIS: {
        TestServers.requireReachable("Redis " + REDIS_HOST + ":" + REDIS_PORT, TestStore::redisProblem);
        return new Opened(RedisIdempotencyStore.builder().host(REDIS_HOST).port(REDIS_PORT).database(15)
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

  private static String redisProblem() {
    try (JedisPooled probe = new JedisPooled(new HostAndPort(REDIS_HOST, REDIS_PORT),
        DefaultJedisClientConfig.builder().database(15).timeoutMillis(5_000).build())) {
      probe.ping();
      return "";
    } catch (RuntimeException e) {
      return "Redis is not reachable at " + REDIS_HOST + ":" + REDIS_PORT + " (" + e.getMessage() + ").";
    }
  }
}
