package io.idempotent.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The web layer's status codes and the key's scope, on the woven services and a real store. */
class CheckoutEndpointTest {

  private static final String CARD = "4242 4242 4242 4242";

  private DemoEnvironment env;
  private final PaymentGateway gateway = new PaymentGateway();
  private final OrderService orders = new OrderService(gateway, new Warehouse());
  private final CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);

  @BeforeEach
  void open() {
    env = DemoEnvironment.open(TestDatabases.freshH2());
  }

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void post_sameClientOrderIdFromAnotherUser_isAnotherOrderWithItsOwnCharge() {
    OrderRequest order = new OrderRequest("co-1", CARD, 1_000);
    HttpResponse alice = endpoint.post(new User("alice"), order);
    HttpResponse bob = endpoint.post(new User("bob"), order);
    HttpResponse aliceAgain = endpoint.post(new User("alice"), order);

    assertThat(alice.status()).isEqualTo(201);
    assertThat(bob.status()).isEqualTo(201);
    assertThat(bob.replayed()).as("bob's order is not alice's replayed").isFalse();
    assertThat(bob.body()).isNotEqualTo(alice.body());
    assertThat(aliceAgain).isEqualTo(new HttpResponse(201, true, alice.body()));
    assertThat(gateway.chargesFor("alice/co-1")).isEqualTo(1);
    assertThat(gateway.chargesFor("bob/co-1")).isEqualTo(1);
    assertThat(orders.executions()).isEqualTo(2);
  }

  @Test
  void post_withoutClientOrderId_is400AndNothingRuns() {
    HttpResponse r = endpoint.post(new User("alice"), new OrderRequest(null, CARD, 1_000));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.replayed()).isFalse();
    assertThat(orders.executions()).isZero();
    assertThat(gateway.calls()).isZero();
  }

  @Test
  void post_freshDeclineAfterAReplay_isNotMarkedAsReplayed() {
    OrderRequest ok = new OrderRequest("co-2", CARD, 1_000);
    endpoint.post(new User("alice"), ok);
    assertThat(endpoint.post(new User("alice"), ok).replayed()).isTrue();

    HttpResponse declined = endpoint.post(new User("alice"), new OrderRequest("co-3", PaymentGateway.DECLINED_CARD, 1_000));
    assertThat(declined.status()).isEqualTo(402);
    assertThat(declined.replayed()).as("the decline happened on this request").isFalse();
  }
}
