package com.example.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import lombok.RequiredArgsConstructor;
import lombok.extern.slf4j.Slf4j;
import org.springframework.stereotype.Service;

/** A Spring service written with Lombok; its idempotent method is woven at build time. */
@Slf4j
@Service
@RequiredArgsConstructor
public class Payments {

  private final AtomicInteger charges;

  @Idempotent(key = "#request.orderId")
  public Receipt charge(ChargeRequest request) {
    int run = charges.incrementAndGet();
    log.info("charging {} cents for order {}", request.getCents(), request.getOrderId());
    return new Receipt(request.getOrderId(), request.getCents(), run);
  }
}
