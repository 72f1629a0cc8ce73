package io.idempotent.spring;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The stores the auto-configuration can build, imported in order of preference: the first whose
 * conditions hold registers the store, and the others then see it and step back.
 */
final class StoreConfigurations {

  private StoreConfigurations() {}

  /** The SQL table store on the application's {@code DataSource}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.idempotent.jdbi.JdbiIdempotencyStore",
      "org.springframework.jdbc.datasource.DataSourceUtils"})
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnProperty(prefix = "idempotent", name = "store", havingValue = "jdbi", matchIfMissing = true)
  static class SqlStore {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    JdbiIdempotencyStore jdbiIdempotencyStore(DataSource dataSource, IdempotencyProperties properties) {
      IdempotencyProperties.Jdbi p = properties.getJdbi();
      JdbiIdempotencyStore.Builder b = JdbiIdempotencyStore.builder(dataSource)
          .table(p.getTable())
          .operationTimeout(p.getOperationTimeout())
          .createSchema(p.isCreateSchema());
      // in every mode: a transactional call joins the Spring-managed transaction, and an undeclared call made
      // inside one is recognised (and refused unless the mode joins)
      return b.transactionMode(TransactionMode.ofProperty(p.getMode()))
          .callerTransactions(SpringTransactions.on(dataSource))
          .requireTransaction(p.isRequireTransaction())
          .build();
    }

  }

  /**
   * The Redis store, when the application configures a Redis connection ({@code spring.data.redis.host}
   * or {@code spring.data.redis.url}, with {@code port}, {@code database}, {@code username},
   * {@code password}, {@code ssl.enabled}) and {@code idempotent-redis} is present.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.idempotent.redis.RedisIdempotencyStore")
  @ConditionalOnProperty(prefix = "idempotent", name = "store", havingValue = "redis", matchIfMissing = true)
  @org.springframework.context.annotation.Conditional(RedisConfigured.class)
  static class RedisStore {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    RedisIdempotencyStore redisIdempotencyStore(org.springframework.core.env.Environment env) {
      RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder();
      String url = env.getProperty("spring.data.redis.url");
      if (url != null) {
        java.net.URI uri = java.net.URI.create(url);
        b.host(uri.getHost()).ssl("rediss".equalsIgnoreCase(uri.getScheme()));
        if (uri.getPort() > 0) {
          b.port(uri.getPort());
        }
        String info = uri.getUserInfo();
        if (info != null) {
          int colon = info.indexOf(':');
          if (colon > 0) {
            b.user(info.substring(0, colon));
          }
          b.password(colon >= 0 ? info.substring(colon + 1) : info);
        }
      } else {
        b.host(env.getProperty("spring.data.redis.host", "localhost"))
            .port(env.getProperty("spring.data.redis.port", Integer.class, 6379))
            .ssl(env.getProperty("spring.data.redis.ssl.enabled", Boolean.class, false));
        String user = env.getProperty("spring.data.redis.username");
        if (user != null) {
          b.user(user);
        }
        String password = env.getProperty("spring.data.redis.password");
        if (password != null) {
          b.password(password);
        }
      }
      b.database(env.getProperty("spring.data.redis.database", Integer.class, 0));
      return b.build();
    }
  }

  /** Whether the application configures a Redis connection. */
  static final class RedisConfigured implements org.springframework.context.annotation.Condition {
    @Override
    public boolean matches(org.springframework.context.annotation.ConditionContext context,
        org.springframework.core.type.AnnotatedTypeMetadata metadata) {
      var env = context.getEnvironment();
      return env.containsProperty("spring.data.redis.host") || env.containsProperty("spring.data.redis.url");
    }
  }

  /** The in-memory store, when no other is configured. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.idempotent.caffeine.CaffeineIdempotencyStore")
  @ConditionalOnProperty(prefix = "idempotent", name = "store", havingValue = "caffeine", matchIfMissing = true)
  static class InMemoryStore {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    CaffeineIdempotencyStore caffeineIdempotencyStore(IdempotencyProperties properties) {
      CaffeineIdempotencyStore.Builder b = CaffeineIdempotencyStore.builder();
      Long maximum = properties.getCaffeine().getMaximumCompleted();
      if (maximum != null) {
        b.maximumCompleted(maximum);
      }
      return b.build();
    }
  }
}
