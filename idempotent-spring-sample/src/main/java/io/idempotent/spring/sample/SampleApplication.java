package io.idempotent.spring.sample;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small shop on Spring Boot, woven at compile time by {@code ajc} with {@code idempotent-aspect}: the
 * starter configures the store (the SQL table on the application's {@code DataSource}, in joined mode)
 * and registers the {@code Idempotency-Key} filter; see {@code application.properties}.
 *
 * <ul>
 *   <li>{@link ShopController}: {@code POST /orders} behind the filter;</li>
 *   <li>{@link Orders}: a private {@code @Idempotent} method reached by self-invocation, and a
 *       {@code @Transactional} checkout whose outcome commits or rolls back with its rows;</li>
 *   <li>{@link Payments}: {@code @Retryable} around a self-invoked {@code @Idempotent} charge;</li>
 *   <li>{@link SettlementJob}: a {@code @Scheduled} job that runs once per period across instances;</li>
 *   <li>{@link OrderListener}: a {@code @RabbitListener} that ships each order once however often it is
 *       delivered, with {@code sample.orders.enabled=true}.</li>
 * </ul>
 */
@SpringBootApplication
@EnableScheduling
@EnableResilientMethods
public class SampleApplication {

  /** The time the settlement job reads its period from. */
  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
