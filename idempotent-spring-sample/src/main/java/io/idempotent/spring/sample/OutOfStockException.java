package io.idempotent.spring.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * The stock of an item would go below zero: the checkout's transaction rolls back. Over HTTP it is a 409,
 * sent with {@code sendError}, which the {@code Idempotency-Key} filter does not record: the key is
 * released, so the same request retried once the item is restocked places the order.
 */
@ResponseStatus(HttpStatus.CONFLICT)
public class OutOfStockException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public OutOfStockException(String item) {
    super("Not enough " + item + " in stock");
  }
}
