package io.idempotent.spring;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.spi.IdempotencyStore;
import java.util.Locale;
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
          .createSchema(p.isCreateSchema());
      if (mode(p.getMode()) == TransactionMode.JOINED) {
        b.callerTransactions(SpringTransactions.on(dataSource)).requireTransaction(p.isRequireTransaction());
      }
      return b.build();
    }

    private static TransactionMode mode(String value) {
      try {
        return TransactionMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IdempotencyConfigurationException(
            "Property idempotent.jdbi.mode is '" + value + "'; expected independent or joined");
      }
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
