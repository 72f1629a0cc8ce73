package io.idempotent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyListener;
import io.idempotent.Idempotent;
import io.idempotent.MissingKeyPolicy;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** The auto-configuration in real application contexts: which store, which properties, and joined transactions. */
class IdempotencyAutoConfigurationTest {

  @TempDir
  static Path dir;

  private static final List<IdempotencyEvent.Type> EVENTS = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withAllowBeanDefinitionOverriding(false)
      .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

  @AfterEach
  void forget() {
    Idempotency.uninstall();
    EVENTS.clear();
  }

  /** An application with one DataSource, a transaction manager and the order service on a table of its own. */
  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class ShopApplication {
    static SpringDatabase database = SpringDatabase.H2;

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource() {
      return database.open(dir);
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    OrderService orderService(DataSource dataSource) {
      JdbcTemplate jdbc = new JdbcTemplate(dataSource);
      String table = SpringDatabase.uniqueName("orders");
      jdbc.execute("CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY)");
      return new OrderService(jdbc, table);
    }

    @Bean
    IdempotencyListener recordingListener() {
      return e -> EVENTS.add(e.type());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnStore {
    @Bean(destroyMethod = "close")
    IdempotencyStore myStore() {
      return CaffeineIdempotencyStore.builder().maximumCompleted(7).build();
    }
  }

  /** Two stores of the application's, neither marked primary. */
  @Configuration(proxyBeanMethods = false)
  static class TwoStores {
    @Bean(destroyMethod = "close")
    IdempotencyStore ordersStore() {
      return CaffeineIdempotencyStore.builder().build();
    }

    @Bean(destroyMethod = "close")
    IdempotencyStore paymentsStore() {
      return CaffeineIdempotencyStore.builder().build();
    }
  }

  /** Two stores of the application's, one of them primary. */
  @Configuration(proxyBeanMethods = false)
  static class TwoStoresOnePrimary {
    @Bean(destroyMethod = "close")
    @org.springframework.context.annotation.Primary
    IdempotencyStore ordersStore() {
      return CaffeineIdempotencyStore.builder().build();
    }

    @Bean(destroyMethod = "close")
    IdempotencyStore paymentsStore() {
      return CaffeineIdempotencyStore.builder().build();
    }
  }

  private static String table(String prefix) {
    return SpringDatabase.uniqueName(prefix);
  }

  @Test
  void withADataSource_theSqlTableStore_andASelfInvokedPrivateMethodRunsOnce() {
    runner.withUserConfiguration(ShopApplication.class)
        .withPropertyValues("idempotent.jdbi.table=" + table("idem"))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(IdempotencyConfig.class).store(null)).isInstanceOf(JdbiIdempotencyStore.class);
          OrderService orders = context.getBean(OrderService.class);
          String id = UUID.randomUUID().toString();

          String first = orders.place(id);
          String second = orders.place(id);

          assertThat(second).isEqualTo(first);
          assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
          assertThat(orders.runs()).isEqualTo(1);
          assertThat(EVENTS).containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
        });
  }

  /** A bean whose idempotent method names a store that is not configured: a typo. */
  static class MistypedStore {
    @Idempotent(key = "#id", store = "paymnets")
    public String pay(String id) {
      return "paid " + id;
    }
  }

  @Test
  void aBeanWhoseIdempotentMethodNamesAStoreNoStoreHas_failsTheStart_namingTheMethodAndTheStores() {
    runner.withBean(MistypedStore.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure())
          .isInstanceOf(io.idempotent.IdempotencyConfigurationException.class)
          .hasMessageContaining("MistypedStore.pay(String) names the store 'paymnets'")
          .hasMessageContaining("configured stores: [");
    });
  }

  @Test
  void theStartUpCheck_canBeSwitchedOff() {
    runner.withBean(MistypedStore.class).withPropertyValues("idempotent.validate-on-startup=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void withoutADataSource_theInMemoryStore() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(IdempotencyConfig.class).store(null)).isInstanceOf(CaffeineIdempotencyStore.class);
    });
  }

  @Test
  void theApplicationsOwnStoreBeanWins_overTheDataSource() {
    runner.withUserConfiguration(ShopApplication.class, OwnStore.class).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(unguarded(context.getBean(IdempotencyConfig.class).store(null))).isSameAs(context.getBean("myStore"));
      assertThat(context).doesNotHaveBean(JdbiIdempotencyStore.class);
    });
  }

  @Test
  void severalStoreBeans_noneIsPrimary_failTheStart_namingThemAndTheFix() {
    runner.withUserConfiguration(TwoStores.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOf(io.idempotent.IdempotencyConfigurationException.class)
          .hasMessageContaining("Several IdempotencyStore beans (ordersStore, paymentsStore)")
          .hasMessageContaining("@Primary");
    });
  }

  @Test
  void severalStoreBeans_thePrimaryIsTheDefault_andEachIsNamedByItsBean() {
    runner.withUserConfiguration(TwoStoresOnePrimary.class).run(context -> {
      assertThat(context).hasNotFailed();
      IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
      assertThat(config.store(null)).isSameAs(context.getBean("ordersStore"));
      assertThat(config.store("ordersStore")).isSameAs(context.getBean("ordersStore"));
      assertThat(config.store("paymentsStore")).isSameAs(context.getBean("paymentsStore"));
    });
  }

  @Test
  void withAMeterRegistryBean_everyCallIsTimedByOutcome() {
    runner.withBean(io.micrometer.core.instrument.MeterRegistry.class,
        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new).run(context -> {
          assertThat(context).hasNotFailed();
          var meters = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
          Greeter greeter = new Greeter();
          String name = UUID.randomUUID().toString();
          greeter.greet(name);
          greeter.greet(name);
          greeter.greet(name);
          assertThat(meters.get("idempotent.calls").tag("name", "greet").tag("outcome", "executed").timer().count())
              .isEqualTo(1);
          assertThat(meters.get("idempotent.calls").tag("name", "greet").tag("outcome", "replayed").timer().count())
              .isEqualTo(2);
        });
  }

  @Test
  void storeOperations_areTimedOnTheTableStore_andOnTheInMemoryStoreOnlyWhenAskedFor() {
    String metersBean = "meters";
    ApplicationContextRunner withMeters = runner.withBean(metersBean, io.micrometer.core.instrument.MeterRegistry.class,
        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new);
    withMeters.withUserConfiguration(ShopApplication.class).run(context -> {
      assertThat(context).hasNotFailed();
      new Greeter().greet(UUID.randomUUID().toString());
      assertThat(storeOperationTimers(context.getBean(metersBean, io.micrometer.core.instrument.MeterRegistry.class)))
          .as("the table store's operations").contains("claim", "complete");
    });
    withMeters.run(context -> {
      new Greeter().greet(UUID.randomUUID().toString());
      assertThat(storeOperationTimers(context.getBean(metersBean, io.micrometer.core.instrument.MeterRegistry.class)))
          .as("the Caffeine store's operations, by default").isEmpty();
    });
    withMeters.withPropertyValues("idempotent.metrics.store-operations=true").run(context -> {
      new Greeter().greet(UUID.randomUUID().toString());
      assertThat(storeOperationTimers(context.getBean(metersBean, io.micrometer.core.instrument.MeterRegistry.class)))
          .as("the Caffeine store's operations, asked for").contains("claim", "complete");
    });
  }

  /** The operations timed in {@code idempotent.store.operations} that were timed at least once. */
  private static List<String> storeOperationTimers(io.micrometer.core.instrument.MeterRegistry meters) {
    return meters.find("idempotent.store.operations").timers().stream().filter(t -> t.count() > 0)
        .map(t -> t.getId().getTag("operation")).toList();
  }

  @Test
  void withAnObservationRegistryBean_everyCallIsAnObservation() {
    List<String> observed = new CopyOnWriteArrayList<>();
    io.micrometer.observation.ObservationRegistry observations = io.micrometer.observation.ObservationRegistry.create();
    observations.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
      @Override
      public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
        return true;
      }

      @Override
      public void onStop(io.micrometer.observation.Observation.Context context) {
        observed.add(context.getName() + " " + context.getLowCardinalityKeyValue("idempotent.outcome").getValue());
      }
    });
    runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> observations).run(context -> {
      assertThat(context).hasNotFailed();
      new Greeter().greet(UUID.randomUUID().toString());
      assertThat(observed).containsExactly("idempotent.call executed");
    });
  }

  @Test
  void withoutARegistry_orWithMetricsOff_nothingIsMeasured() {
    runner.run(context -> assertThat(context.getBean(IdempotencyConfig.class).observer()).isNull());
    runner.withBean(io.micrometer.core.instrument.MeterRegistry.class,
            io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
        .withPropertyValues("idempotent.metrics.enabled=false").run(context -> {
          assertThat(context.getBean(IdempotencyConfig.class).observer()).isNull();
          new Greeter().greet(UUID.randomUUID().toString());
          assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class).find("idempotent.calls")
              .timers()).isEmpty();
        });
  }

  @Test
  void storeCaffeine_isTakenEvenWithADataSource() {
    runner.withUserConfiguration(ShopApplication.class).withPropertyValues("idempotent.store=caffeine")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(unguarded(context.getBean(IdempotencyConfig.class).store(null)))
              .isInstanceOf(CaffeineIdempotencyStore.class);
        });
  }

  /** The store a configuration holds, without the guard against Spring transactions it may wear. */
  private static IdempotencyStore unguarded(IdempotencyStore store) {
    return store instanceof SpringTransactionGuard guard ? guard.guarded() : store;
  }

  @Test
  void aStoreThatCannotJoinSpringTransactions_refusesAnUndeclaredCallInsideOne_andTakesAnExternalOne() {
    runner.withUserConfiguration(ShopApplication.class).withPropertyValues("idempotent.store=caffeine")
        .run(context -> {
          assertThat(context.getBean(IdempotencyConfig.class).store(null)).isInstanceOf(SpringTransactionGuard.class);
          var tx = new org.springframework.transaction.support.TransactionTemplate(
              context.getBean(PlatformTransactionManager.class));
          Idempotency idempotency = context.getBean(InstalledIdempotency.class)
              .idempotency();
          String key = UUID.randomUUID().toString();
          assertThatThrownBy(() -> tx.execute(s -> idempotency.call("pay", String.class).key(key).run(() -> "paid")))
              .isInstanceOf(io.idempotent.IdempotencyConfigurationException.class)
              .hasMessageContaining("records every outcome on its own").hasMessageContaining("Effects.EXTERNAL");
          String paid = tx.execute(s -> idempotency.call("pay", String.class).key(key)
              .effects(io.idempotent.Effects.EXTERNAL).run(() -> "paid"));
          assertThat(paid).isEqualTo("paid");
          assertThat(idempotency.call("pay", String.class).key(key).execute(() -> "again").replayed())
              .as("outside a transaction nothing needs declaring").isTrue();
        });
  }

  @Test
  void withARedisConnectionConfigured_theRedisStore_unlessThereIsADataSource() {
    io.idempotent.testservers.TestServers.REDIS.requireReachable();
    String[] redis = {"spring.data.redis.host=" + io.idempotent.testservers.TestServers.REDIS.host,
        "spring.data.redis.port=" + io.idempotent.testservers.TestServers.REDIS.port,
        "spring.data.redis.database=" + io.idempotent.testservers.TestServers.RedisServer.DATABASE};
    Greeter greeter = new Greeter();
    runner.withPropertyValues(redis).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(IdempotencyConfig.class).store(null))
          .isInstanceOf(io.idempotent.redis.RedisIdempotencyStore.class);
      String name = UUID.randomUUID().toString();
      greeter.greet(name);
      greeter.greet(name);
      assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    });
    runner.withUserConfiguration(ShopApplication.class).withPropertyValues(redis)
        .withPropertyValues("idempotent.jdbi.table=" + table("idem"))
        .run(context -> assertThat(context.getBean(IdempotencyConfig.class).store(null))
            .isInstanceOf(JdbiIdempotencyStore.class));
  }

  @Test
  void theHttpFilterIsRegisteredInAServletApplication_whenEnabled() {
    org.springframework.boot.test.context.runner.WebApplicationContextRunner web =
        new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));
    web.run(context -> assertThat(context).doesNotHaveBean("idempotencyFilter"));
    web.withPropertyValues("idempotent.http.enabled=true").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean("idempotencyFilter", org.springframework.boot.web.servlet.FilterRegistrationBean.class)
          .getFilter()).isInstanceOf(io.idempotent.http.IdempotencyFilter.class);
    });
    runner.withPropertyValues("idempotent.http.enabled=true")
        .run(context -> assertThat(context).doesNotHaveBean("idempotencyFilter")); // not a web application
  }

  @Test
  void askingForTheHttpFilter_withoutIdempotentHttp_failsTheStart_namingTheDependency() {
    org.springframework.boot.test.context.runner.WebApplicationContextRunner web =
        new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
            .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
                io.idempotent.http.IdempotencyFilter.class));
    web.withPropertyValues("idempotent.http.enabled=true").run(context -> assertThat(context).hasFailed()
        .getFailure().rootCause().hasMessageContaining("idempotent.http.enabled=true")
        .hasMessageContaining("io.idempotent:idempotent-http"));
    web.run(context -> assertThat(context).hasNotFailed()); // not asked for: nothing to miss
  }

  @Test
  void theIdempotentPropertiesAreBound() {
    runner.withPropertyValues("idempotent.ttl=2h", "idempotent.lease=45s", "idempotent.wait-timeout=3s",
        "idempotent.missing-key=run-unprotected").run(context -> {
          IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
          assertThat(config.defaultTtl()).isEqualTo(Duration.ofHours(2));
          assertThat(config.defaultLease()).isEqualTo(Duration.ofSeconds(45));
          assertThat(config.defaultWaitTimeout()).isEqualTo(Duration.ofSeconds(3));
          assertThat(config.missingKeyPolicy()).isEqualTo(MissingKeyPolicy.RUN_UNPROTECTED);
        });
  }

  @Test
  void aBadModeFailsTheStart_namingTheProperty() {
    runner.withUserConfiguration(ShopApplication.class).withPropertyValues("idempotent.jdbi.mode=sometimes")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().hasMessageContaining("idempotent.jdbi.mode").hasMessageContaining("sometimes"));
  }

  /** A woven method outside any context: it runs on whatever configuration is installed. */
  static final class Greeter {
    @io.idempotent.Idempotent(name = "greet", key = "#name")
    String greet(String name) {
      return "hello " + name;
    }
  }

  @Test
  void closingTheContext_removesTheInstalledConfiguration() {
    Greeter greeter = new Greeter();
    runner.run(context -> {
      greeter.greet("inside");
      assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    });
    String previous = System.setProperty("idempotent.enabled", "false"); // what the aspect falls back to
    try {
      greeter.greet("after the close");
      assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.UNPROTECTED);
    } finally {
      if (previous == null) {
        System.clearProperty("idempotent.enabled");
      } else {
        System.setProperty("idempotent.enabled", previous);
      }
    }
  }

  @Test
  void closingOneContext_leavesTheConfigurationAnotherContextInstalledSince() {
    Greeter greeter = new Greeter();
    String previous = System.setProperty("idempotent.store", "caffeine"); // what the aspect would fall back to
    try {
      runner.run(first -> runner.withBean(IdempotencyListener.class, () -> e -> EVENTS.add(e.type()))
          .run(second -> {
            first.close(); // the first context shuts down while the second still runs
            String name = UUID.randomUUID().toString();
            greeter.greet(name);
            greeter.greet(name);
            // still the second context's configuration: its listener saw both calls
            assertThat(EVENTS).containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
          }));
    } finally {
      if (previous == null) {
        System.clearProperty("idempotent.store");
      } else {
        System.setProperty("idempotent.store", previous);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(SpringDatabase.class)
  void joined_aTransactionalMethod_commitsItsOutcomeWithItsRow_orRollsBackBoth(SpringDatabase database) {
    ShopApplication.database = database;
    try {
      runner.withUserConfiguration(ShopApplication.class)
          .withPropertyValues("idempotent.jdbi.mode=joined", "idempotent.jdbi.table=" + table("idem"))
          .run(context -> {
            assertThat(context).hasNotFailed();
            OrderService orders = context.getBean(OrderService.class);
            String rolledBack = UUID.randomUUID().toString();
            String committed = UUID.randomUUID().toString();

            assertThatThrownBy(() -> orders.placeInTransaction(rolledBack, true)).hasMessageContaining("fails after");
            String retried = orders.placeInTransaction(rolledBack, false); // released by the rollback: runs again
            String first = orders.placeInTransaction(committed, false);
            String replayed = orders.placeInTransaction(committed, false);

            assertThat(retried).startsWith("receipt 2 ");
            assertThat(replayed).isEqualTo(first);
            assertThat(orders.runs()).isEqualTo(3);
            // outside a transaction a joined store refuses before the method runs
            assertThatThrownBy(() -> orders.place(UUID.randomUUID().toString()))
                .hasMessageContaining("Spring-managed transaction");
            assertThat(orders.runs()).isEqualTo(3);
          });
    } finally {
      ShopApplication.database = SpringDatabase.H2;
    }
  }
}
