package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.shop.Mailer;
import io.idempotent.examples.shop.OrderStatusGuard;
import java.util.List;

/**
 * Scenario 9: the state-machine guard recipe. Six callers at once (the webhook, a poller, the customer
 * refreshing the page) try to move one order from PENDING to PAID; the conditional update lets exactly
 * one of them, and only that one sends the receipt.
 */
final class StatusGuardScenario implements Scenario {

  static final String ORDER = "alice/co-1009";
  static final int CALLERS = 6;

  final Mailer mailer = new Mailer();
  List<Boolean> moved = List.of();
  String finalStatus;

  @Override
  public String id() {
    return "9";
  }

  @Override
  public String title() {
    return "State-machine guard, pending to paid";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws Exception {
    OrderStatusGuard guard = new OrderStatusGuard(env.jdbi());
    guard.createPending(ORDER);
    moved = Concurrently.run(CALLERS, i -> () -> {
      boolean won = guard.markPaid(ORDER);
      if (won) {
        mailer.send("alice@example.com", "Receipt for " + ORDER);
      }
      return won;
    });
    long winners = moved.stream().filter(b -> b).count();
    finalStatus = guard.status(ORDER);
    String how = "UPDATE ... WHERE status = 'PENDING' moved " + winners + (winners == 1 ? " row" : " rows")
        + "; the order is " + finalStatus;
    return new ScenarioResult(id(), title(), moved.size(), winners, moved.size() - winners,
        mailer.sent(), "email", how);
  }
}
