package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.Mailer;
import io.idempotent.examples.shop.ProviderEvent;
import io.idempotent.examples.shop.WebhookHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 6: the payment provider sends three "payment succeeded" callbacks and, not having seen our
 * acknowledgements in time, delivers each again, out of order, with a new attempt number. One email
 * per event.
 */
final class WebhookScenario implements Scenario {

  /** The provider's events, in the order it created them. */
  static final List<String> EVENTS = List.of("evt_6001", "evt_6002", "evt_6003");
  /** The order they arrive in: each twice, out of order. */
  static final List<Integer> DELIVERIES = List.of(1, 0, 2, 0, 2, 1);

  final Mailer mailer = new Mailer();
  final WebhookHandler handler = new WebhookHandler(mailer);

  @Override
  public String id() {
    return "6";
  }

  @Override
  public String title() {
    return "Webhook delivered twice, out of order";
  }

  static String customer(int event) {
    return "customer" + (event + 1) + "@example.com";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) {
    OutcomeTally.Mark mark = env.tally().mark();
    Map<Integer, Integer> attempts = new HashMap<>();
    List<String> arrived = new ArrayList<>();
    for (int e : DELIVERIES) {
      int attempt = attempts.merge(e, 1, Integer::sum);
      handler.onPaymentSucceeded(new ProviderEvent(EVENTS.get(e), "alice/co-60" + (e + 1), customer(e), 4_200, attempt));
      arrived.add(Integer.toString(e + 1));
    }
    int mostToOne = 0;
    for (int e = 0; e < EVENTS.size(); e++) {
      mostToOne = Math.max(mostToOne, mailer.sentTo(customer(e)));
    }
    String how = "deliveries in order " + String.join(",", arrived)
        + (mostToOne <= 1 ? "; no event emailed twice" : "; an event emailed " + mostToOne + " times");
    return new ScenarioResult(id(), title(), DELIVERIES.size(), handler.executions(),
        mark.absorbedSince(WebhookHandler.NAME), mailer.sent(), "email", how);
  }
}
