package io.idempotent.spring.sample;

import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.ExchangeBuilder;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The orders queue {@link OrderListener} consumes, with its dead-letter exchange and queue, declared on the
 * broker by Spring's {@code RabbitAdmin} when the application first connects; the names are properties
 * ({@code sample.orders.queue}, {@code .dead-letter-exchange}, {@code .dead-letter-queue}). A message the
 * listener rejects without requeue goes to the dead-letter queue. Messages are JSON. Only with
 * {@code sample.orders.enabled=true}, so the shop runs without a broker too.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.orders.enabled")
public class OrderQueues {

  @Bean
  Queue orderQueue(@Value("${sample.orders.queue}") String queue,
      @Value("${sample.orders.dead-letter-exchange}") String deadLetterExchange) {
    return QueueBuilder.durable(queue).deadLetterExchange(deadLetterExchange).build();
  }

  @Bean
  FanoutExchange orderDeadLetterExchange(@Value("${sample.orders.dead-letter-exchange}") String deadLetterExchange) {
    return ExchangeBuilder.fanoutExchange(deadLetterExchange).durable(true).build();
  }

  @Bean
  Queue orderDeadLetterQueue(@Value("${sample.orders.dead-letter-queue}") String deadLetterQueue) {
    return QueueBuilder.durable(deadLetterQueue).build();
  }

  @Bean
  Binding orderDeadLetterBinding(@Qualifier("orderDeadLetterQueue") Queue deadLetterQueue,
      FanoutExchange orderDeadLetterExchange) {
    return BindingBuilder.bind(deadLetterQueue).to(orderDeadLetterExchange);
  }

  /** Used by Spring Boot's {@code RabbitTemplate} and by the listener containers. */
  @Bean
  MessageConverter jsonMessageConverter() {
    return new JacksonJsonMessageConverter();
  }
}
