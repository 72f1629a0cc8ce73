package io.idempotent.assemblies;

import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** The application's Spring configuration: its transaction manager and the fixtures' beans. */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
public class ShopConfiguration {

  @Bean
  public PlatformTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  public RequiresNewPayments requiresNewPayments() {
    return new RequiresNewPayments();
  }

  @Bean
  public PaymentService paymentService(RequiresNewPayments requiresNew) {
    return new PaymentService(requiresNew);
  }

  @Bean
  public PaymentListener paymentListener() {
    return new PaymentListener();
  }
}
