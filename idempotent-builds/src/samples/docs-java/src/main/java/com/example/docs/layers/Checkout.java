package com.example.docs.layers;

import io.idempotent.Idempotent;

/** docs/LAYERS.md, inner service methods: an order placed with its charge, each recorded. */
public class Checkout {

  public record User(String id) {}

  public record Money(long cents, String currency) {}

  public record OrderRequest(String clientOrderId, Money amount) {}

  public record Receipt(String orderId, Money amount) {}

  public record Order(String userId, String clientOrderId, Receipt receipt) {}

  public static class CardDeclined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CardDeclined(String message) {
      super(message);
    }
  }

  public interface OrderTable {
    Order insert(User user, OrderRequest order, Receipt receipt);
  }

  public interface PaymentProvider {
    Receipt charge(String orderId, Money amount);
  }

  private final OrderTable orders;
  private final PaymentProvider provider;

  public Checkout(OrderTable orders, PaymentProvider provider) {
    this.orders = orders;
    this.provider = provider;
  }

  // README snippet: layers-nested
}
