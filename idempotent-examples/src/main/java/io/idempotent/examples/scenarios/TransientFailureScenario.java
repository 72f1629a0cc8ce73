package io.idempotent.examples.scenarios;

import io.idempotent.IdempotencyEvent;
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
 * Scenario 4a: the first attempt fails with a transient error after the card was charged (the
 * warehouse is briefly down). The order's key is released, so the retry runs the order again; its
 * inner charge replays the first receipt, so the card is charged once.
 */
final class TransientFailureScenario implements Scenario {

  static final OrderRequest ORDER = new OrderRequest("co-1004", ClientRetryScenario.CARD, 3_100);

  final PaymentGateway gateway = new PaymentGateway();
  final Warehouse warehouse = new Warehouse();
  final OrderService orders = new OrderService(gateway, warehouse);
  final List<HttpResponse> responses = new ArrayList<>();

  @Override
  public String id() {
    return "4a";
  }

  @Override
  public String title() {
    return "Transient failure, then retry";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) {
    CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);
    warehouse.failNextReservations(1);
    OutcomeTally.Mark mark = env.tally().mark();
    responses.add(endpoint.post(ClientRetryScenario.ALICE, ORDER));
    responses.add(endpoint.post(ClientRetryScenario.ALICE, ORDER));
    long chargeReplays = mark.since(OrderService.CHARGE, IdempotencyEvent.Type.REPLAYED);
    String how = Responses.sequence(responses)
        + (chargeReplays > 0 ? "; the retry ran, its inner charge replayed" : "");
    return new ScenarioResult(id(), title(), responses.size(), orders.executions(),
        mark.absorbedSince(OrderService.PLACE), gateway.charges(), "gateway charge", how);
  }
}
