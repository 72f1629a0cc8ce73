package io.idempotent.spring;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyListener;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.ResultCodec;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.util.ClassUtils;

/**
 * Configures idempotency for a Spring Boot application: the store from the application's beans, the
 * {@code idempotent.*} properties, and the configuration installed for the woven aspect at start-up and
 * removed when the context closes.
 *
 * <p>The store: an {@link IdempotencyStore} bean of the application wins (of several, the {@code @Primary}
 * one is the default, and each is also registered under its bean name for
 * {@code @Idempotent(store = "<bean name>")}); else the SQL table store on the
 * application's single {@code DataSource} ({@code idempotent-jdbi} and {@code spring-jdbc} on the class
 * path), in {@code joined} mode writing each outcome in the caller's Spring-managed transaction
 * ({@link SpringTransactions}); else Redis when the application configures a Redis connection
 * ({@code idempotent-redis}); else the in-memory store ({@code idempotent-caffeine}).
 * {@code idempotent.store=jdbi|redis|caffeine} names one.
 *
 * <p>With {@code idempotent.http.enabled=true} in a servlet web application, the {@code Idempotency-Key}
 * filter of {@code idempotent-http} is registered too ({@link HttpFilterConfiguration}); in a reactive one,
 * its WebFlux filter ({@link WebFluxFilterConfiguration}). With
 * {@code idempotent-micrometer} on the class path and a {@code MeterRegistry} bean, every call is measured
 * ({@link MetricsConfiguration}).
 */
@AutoConfiguration(afterName = {
    // Spring Boot 4
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    // Spring Boot 3.5: the same configurations in their earlier package
    "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
    "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"})
@EnableConfigurationProperties(IdempotencyProperties.class)
@Import({StoreConfigurations.SqlStore.class, StoreConfigurations.RedisStore.class,
    StoreConfigurations.InMemoryStore.class, HttpFilterConfiguration.class, HttpFilterMissing.class,
    WebFluxFilterConfiguration.class, WebFluxFilterConfiguration.Missing.class, MetricsConfiguration.class}) // stores in this order
public class IdempotencyAutoConfiguration {

  /** The configuration from the properties, the store, and the application's listeners and codec. */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyConfig idempotencyConfig(IdempotencyProperties properties, ListableBeanFactory beans,
      ObjectProvider<IdempotencyStore> store,
      ObjectProvider<IdempotencyListener> listeners, ObjectProvider<ResultCodec> codec) {
    IdempotencyConfig.Builder b = IdempotencyConfig.builder().enabled(properties.isEnabled());
    if (properties.getTtl() != null) {
      b.defaultTtl(properties.getTtl());
    }
    if (properties.getLease() != null) {
      b.defaultLease(properties.getLease());
    }
    if (properties.getWaitTimeout() != null) {
      b.defaultWaitTimeout(properties.getWaitTimeout());
    }
    if (properties.getMissingKey() != null) {
      b.missingKeyPolicy(properties.getMissingKey());
    }
    Map<String, IdempotencyStore> all = beans.getBeansOfType(IdempotencyStore.class);
    IdempotencyStore chosen = store.getIfUnique(); // the only one, or the @Primary one of several
    if (chosen == null && all.size() > 1) {
      throw new IdempotencyConfigurationException("Several IdempotencyStore beans (" + String.join(", ",
          new TreeSet<>(all.keySet())) + ") and none is @Primary: mark the default store's bean @Primary;"
          + " every store is also available by its bean name, as @Idempotent(store = \"<bean name>\")");
    }
    IdentityHashMap<IdempotencyStore, IdempotencyStore> guarded = new IdentityHashMap<>(); // one guard per store bean
    boolean transactions = hasTransactionManager(beans);
    all.forEach((name, s) -> b.store(name,
        guarded.computeIfAbsent(s, x -> transactions ? guardedInTransactions(name, x) : x)));
    if (chosen != null) {
      b.store(guarded.computeIfAbsent(chosen, x -> transactions ? guardedInTransactions("default", x) : x));
    } else if (properties.isEnabled()) {
      throw new IdempotencyConfigurationException("No idempotency store: define an IdempotencyStore bean, or put"
          + " idempotent-jdbi (with a DataSource) or idempotent-caffeine on the class path"
          + (properties.getStore() != null ? " (idempotent.store is '" + properties.getStore() + "')" : ""));
    }
    listeners.orderedStream().reduce(IdempotencyListener::andThen).ifPresent(b::listener);
    codec.ifAvailable(b::codec);
    IdempotencyConfig built = b.build();
    MetricsConfiguration.ConfigInstrumentation measure =
        beans.getBeanProvider(MetricsConfiguration.ConfigInstrumentation.class).getIfAvailable();
    return measure == null ? built : measure.instrument(built);
  }

  /**
   * {@code store} as calls see it: one that cannot write in a Spring-managed transaction refuses a call made
   * inside one unless the call declares its effects external ({@link SpringTransactionGuard}); the table
   * store (and a layered store, whose far store decides) guards itself.
   */
  private static IdempotencyStore guardedInTransactions(String name, IdempotencyStore store) {
    if (store instanceof LayeredIdempotencyStore
        || store.getClass().getName().equals("io.idempotent.jdbi.JdbiIdempotencyStore")) {
      return store;
    }
    return new SpringTransactionGuard(name, store);
  }

  /** Whether the application can open Spring-managed transactions at all: spring-tx and a transaction manager. */
  private static boolean hasTransactionManager(ListableBeanFactory beans) {
    String manager = "org.springframework.transaction.PlatformTransactionManager";
    ClassLoader loader = IdempotencyAutoConfiguration.class.getClassLoader();
    return ClassUtils.isPresent("org.springframework.transaction.support.TransactionSynchronizationManager", loader)
        && ClassUtils.isPresent(manager, loader)
        && beans.getBeanNamesForType(ClassUtils.resolveClassName(manager, loader), false, false).length > 0;
  }

  /** The configuration installed for the woven aspect; removed again when the context closes. */
  @Bean
  @ConditionalOnMissingBean
  public InstalledIdempotency idempotency(IdempotencyConfig config) {
    return new InstalledIdempotency(Idempotency.install(config));
  }

  /**
   * Checks every {@code @Idempotent} method of the application's beans at start-up, against the installed
   * configuration (unless {@code idempotent.validate-on-startup=false}).
   */
  @Bean
  @ConditionalOnProperty(prefix = "idempotent", name = "validate-on-startup", havingValue = "true",
      matchIfMissing = true)
  static SmartInitializingSingleton idempotentMethodsCheck(ListableBeanFactory beans) {
    return new IdempotentMethodsCheck(beans);
  }
}
