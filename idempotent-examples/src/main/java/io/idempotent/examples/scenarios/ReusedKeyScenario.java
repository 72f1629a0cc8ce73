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
 * Scenario 3: a buggy client sends a new order under an id it already used. The payload fingerprint
 * differs, so the call is refused with 422 and nothing runs; the first order stands.
 */
final class ReusedKeyScenario implements Scenario {

  static final OrderRequest FIRST = new OrderRequest("co-1003", ClientRetryScenario.CARD, 4_200);
  static final OrderRequest OTHER_PAYLOAD = new OrderRequest("co-1003", ClientRetryScenario.CARD, 9_900);

  final PaymentGateway gateway = new PaymentGateway();
  final OrderService orders = new OrderService(gateway, new Warehouse());
  final List<HttpResponse> responses = new ArrayList<>();

  @Override
  public String id() {
    return "3";
  }

  @Override
  public String title() {
    return "Reused key, different payload";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) {
    CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);
    OutcomeTally.Mark mark = env.tally().mark();
    responses.add(endpoint.post(ClientRetryScenario.ALICE, FIRST));
    responses.add(endpoint.post(ClientRetryScenario.ALICE, OTHER_PAYLOAD));
    return new ScenarioResult(id(), title(), responses.size(), orders.executions(),
        mark.absorbedSince(OrderService.PLACE), gateway.charges(), "gateway charge",
        Responses.sequence(responses) + "; the other payload was refused, nothing ran");
  }
}
