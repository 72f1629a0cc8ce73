package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.CheckoutEndpoint;
import io.idempotent.examples.shop.HttpResponse;
import io.idempotent.examples.shop.OrderRequest;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.PaymentGateway;
import io.idempotent.examples.shop.User;
import io.idempotent.examples.shop.Warehouse;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 1: the network loses the responses to the first two attempts, and the client sends the same
 * request again with the same client order id. The card is charged once, by the inner idempotent
 * charge; every attempt gets the same order and receipt.
 */
final class ClientRetryScenario implements Scenario {

  static final User ALICE = new User("alice");
  static final String CARD = "4242 4242 4242 4242";
  static final OrderRequest ORDER = new OrderRequest("co-1001", CARD, 4_200);
  static final int ATTEMPTS = 3;

  final PaymentGateway gateway = new PaymentGateway();
  final OrderService orders = new OrderService(gateway, new Warehouse());
  final List<HttpResponse> responses = new ArrayList<>();

  @Override
  public String id() {
    return "1";
  }

  @Override
  public String title() {
    return "Client retry, response lost";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) {
    CheckoutEndpoint endpoint = new CheckoutEndpoint(orders);
    OutcomeTally.Mark mark = env.tally().mark();
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      // the client sees a response only on the last attempt; the earlier ones were lost on the way back
      responses.add(endpoint.post(ALICE, ORDER));
    }
    List<String> placed = responses.stream().filter(r -> r.status() == 201).map(HttpResponse::body).distinct().toList();
    String how = Responses.sequence(responses);
    if (placed.size() == 1 && Responses.withStatus(responses, 201) == responses.size()) {
      how += "; receipt " + placed.get(0).substring(placed.get(0).indexOf(' ') + 1) + " each time";
    } else if (placed.size() > 1) {
      how += "; " + placed.size() + " different orders placed";
    }
    return new ScenarioResult(id(), title(), responses.size(), orders.executions(),
        mark.absorbedSince(OrderService.PLACE), gateway.charges(), "gateway charge", how);
  }
}
