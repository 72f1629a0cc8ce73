package com.example.shop;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class ShopApplication {

  /** Every charge that ran: counted effects. */
  @Bean
  AtomicInteger charges() {
    return new AtomicInteger();
  }

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
