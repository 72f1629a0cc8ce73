package com.example.docs.layers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.docs.layers.Checkout.CardDeclined;
import com.example.docs.layers.Checkout.Money;
import com.example.docs.layers.Checkout.Order;
import com.example.docs.layers.Checkout.OrderRequest;
import com.example.docs.layers.Checkout.Receipt;
import com.example.docs.layers.Checkout.User;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.IdempotencyTokenException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** docs/LAYERS.md's recipes, each called twice as a retry or a redelivery would. */
class LayersTest {

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
  }

  @Test
  void aPlacedOrderAndItsChargeReplay_aDeclineIsReplayedToo() {
    AtomicInteger inserts = new AtomicInteger();
    AtomicInteger charges = new AtomicInteger();
    Checkout checkout = new Checkout((user, order, receipt) -> {
      inserts.incrementAndGet();
      return new Order(user.id(), order.clientOrderId(), receipt);
    }, (orderId, amount) -> {
      charges.incrementAndGet();
      if (amount.cents() > 100_000) {
        throw new CardDeclined("limit exceeded");
      }
      return new Receipt(orderId, amount);
    });
    User ada = new User("ada");
    OrderRequest order = new OrderRequest("c-1", new Money(1999, "EUR"));

    Order first = checkout.placeOrder(ada, order);
    assertThat(checkout.placeOrder(ada, order)).isEqualTo(first);
    assertThat(checkout.placeOrder(new User("bob"), order)).isNotEqualTo(first);
    assertThat(inserts).hasValue(2);
    assertThat(charges).as("the charge's key names the order, not the user").hasValue(1);

    OrderRequest large = new OrderRequest("c-2", new Money(500_000, "EUR"));
    assertThatThrownBy(() -> checkout.placeOrder(ada, large)).isInstanceOf(CardDeclined.class);
    assertThatThrownBy(() -> checkout.placeOrder(ada, large)).isInstanceOf(CardDeclined.class)
        .hasMessageContaining("limit exceeded");
    assertThat(charges).as("the decline replayed, not retried").hasValue(2);
  }

  @Test
  void theDailyJobSettlesADayOnce() {
    List<LocalDate> settled = new CopyOnWriteArrayList<>();
    Clock clock = Clock.fixed(Instant.parse("2026-03-02T00:05:00Z"), ZoneOffset.UTC);
    Settlement instanceA = new Settlement(clock, settled::add);
    Settlement instanceB = new Settlement(clock, settled::add);

    instanceA.settleYesterday();
    instanceB.settleYesterday();

    assertThat(settled).containsExactly(LocalDate.parse("2026-03-01"));
  }

  @Test
  void aRedeliveredWebhookIsHandledOnce() {
    List<String> paid = new CopyOnWriteArrayList<>();
    Webhooks webhooks = new Webhooks(paid::add);

    webhooks.onPaymentSucceeded(new Webhooks.ProviderEvent("evt_1", "o-1", "10:00"));
    webhooks.onPaymentSucceeded(new Webhooks.ProviderEvent("evt_1", "o-1", "10:05"));

    assertThat(paid).containsExactly("o-1");
  }

  @Test
  void aRedeliveredMessageIsHandledOnce() {
    List<String> shipped = new CopyOnWriteArrayList<>();
    Consumer consumer = new Consumer(shipped::add);

    consumer.onMessage(new Consumer.Message("m-1", "ship o-1"));
    consumer.onMessage(new Consumer.Message("m-1", "ship o-1"));

    assertThat(shipped).containsExactly("ship o-1");
  }

  @Test
  void aFormsTokenIsConsumedOnce() {
    List<CheckoutForm.Order> placed = new CopyOnWriteArrayList<>();
    CheckoutForm form = new CheckoutForm(placed::add);
    String token = form.renderForm();

    form.submit(token, new CheckoutForm.Order("A-1"));

    assertThatThrownBy(() -> form.submit(token, new CheckoutForm.Order("A-1")))
        .isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.ALREADY_USED);
    assertThatThrownBy(() -> form.submit("forged", new CheckoutForm.Order("A-1")))
        .isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.UNKNOWN_OR_EXPIRED);
    assertThat(placed).hasSize(1);
  }

  @Test
  void theGuardLetsOneUpdateWin() {
    Jdbi jdbi = Jdbi.create("jdbc:h2:mem:layers-guard;DB_CLOSE_DELAY=-1");
    Payments payments = new Payments();
    jdbi.useHandle(h -> {
      h.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(16))");
      h.execute("INSERT INTO orders VALUES (7, 'PENDING')");
      payments.pay(h, 7);
      payments.pay(h, 7);
      payments.pay(h, 8);
    });

    assertThat(payments.receiptsSent).containsExactly(7L);
  }
}
