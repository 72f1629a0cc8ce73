package com.example.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import lombok.RequiredArgsConstructor;
import lombok.extern.slf4j.Slf4j;

/** A service as a Lombok project writes it: constructor from its final fields, a logger, a mapper. */
@Slf4j
@RequiredArgsConstructor
public class Checkout {

  private final ReceiptMapper mapper;
  /** Every charge that ran: counted effects. */
  private final AtomicInteger charges;
  /** Every refund that ran. */
  private final AtomicInteger refunds;
  /** Every settlement that ran. */
  private final AtomicInteger settlements;

  /** Charges an order once per order id, whatever the retries: the key is a Lombok getter's value. */
  @Idempotent(key = "#order.id")
  public Receipt charge(OrderRequest order) {
    int run = charges.incrementAndGet();
    log.info("charging {} cents for order {}", order.getCents(), order.getId());
    return mapper.toReceipt(order, run);
  }

  /** Refunds an order once: the key is a plain parameter, read by its name. */
  @Idempotent(key = "#orderId")
  public long refund(String orderId, long cents) {
    refunds.incrementAndGet();
    log.info("refunding {} cents of order {}", cents, orderId);
    return cents;
  }

  /** Settles a day: the work is a private method called on this object, which the weaving protects too. */
  public void settle(String day) {
    settleDay(day);
  }

  @Idempotent(key = "'settlement:' + #day")
  private void settleDay(String day) {
    settlements.incrementAndGet();
    log.info("settling {}", day);
  }
}
