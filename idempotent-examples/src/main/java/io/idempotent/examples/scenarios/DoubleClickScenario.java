package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.CheckoutEndpoint;
import io.idempotent.examples.shop.HttpResponse;
import io.idempotent.examples.shop.OrderRequest;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.PaymentGateway;
import io.idempotent.examples.shop.Warehouse;
import java.time.Duration;
import java.util.List;

/**
 * Scenario 2: a burst of identical submissions on concurrent threads (an impatient double, triple,
 * eightfold click). One runs; with {@code placeOrder}'s policy ({@code THROW}) the others get 409 while
 * it runs, and the recorded response once it is done.
 */
final class DoubleClickScenario implements Scenario {

  static final int CLICKS = 8;
  static final OrderRequest ORDER = new OrderRequest("co-1002", ClientRetryScenario.CARD, 1_999);

  /** The gateway takes a while, as real ones do, so that the clicks overlap the first one's work. */
  final PaymentGateway gateway = new PaymentGateway(Duration.ofMillis(300));
  final OrderService orders = new OrderService(gateway, new Warehouse());
  List<HttpResponse> responses = List.of();

  @Override
  public String id() {
    return "2";
  }

  @Override
  public String title() {
    return "Double-click burst, " + CLICKS + " threads";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws Exception {
    CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);
    OutcomeTally.Mark mark = env.tally().mark();
    responses = Concurrently.run(CLICKS, i -> () -> endpoint.post(ClientRetryScenario.ALICE, ORDER));
    return new ScenarioResult(id(), title(), responses.size(), orders.executions(),
        mark.absorbedSince(OrderService.PLACE), gateway.charges(), "gateway charge", Responses.counts(responses));
  }
}
