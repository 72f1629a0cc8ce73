package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.CheckoutEndpoint;
import io.idempotent.examples.shop.HttpResponse;
import io.idempotent.examples.shop.OrderRequest;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.PaymentGateway;
import io.idempotent.examples.shop.Warehouse;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 4b: the card is declined, a business error both order methods declare final. It is recorded
 * as the outcome; the retry gets the same 402 replayed and the gateway is not asked again.
 */
final class FinalFailureScenario implements Scenario {

  static final OrderRequest ORDER = new OrderRequest("co-1005", PaymentGateway.DECLINED_CARD, 12_000);

  final PaymentGateway gateway = new PaymentGateway();
  final OrderService orders = new OrderService(gateway, new Warehouse());
  final List<HttpResponse> responses = new ArrayList<>();

  @Override
  public String id() {
    return "4b";
  }

  @Override
  public String title() {
    return "Declined card (final), then retry";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) {
    CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);
    OutcomeTally.Mark mark = env.tally().mark();
    responses.add(endpoint.post(ClientRetryScenario.ALICE, ORDER));
    responses.add(endpoint.post(ClientRetryScenario.ALICE, ORDER));
    return new ScenarioResult(id(), title(), responses.size(), orders.executions(),
        mark.absorbedSince(OrderService.PLACE), gateway.calls(), "gateway call",
        Responses.sequence(responses) + "; the decline was recorded, not retried");
  }
}
