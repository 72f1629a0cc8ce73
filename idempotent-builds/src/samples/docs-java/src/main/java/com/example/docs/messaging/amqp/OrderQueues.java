package com.example.docs.messaging.amqp;

import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** docs/MESSAGING.md, Spring AMQP: the orders queue, with its dead-letter exchange. */
@Configuration(proxyBeanMethods = false)
public class OrderQueues {

  // README snippet: spring-amqp-queues
}
