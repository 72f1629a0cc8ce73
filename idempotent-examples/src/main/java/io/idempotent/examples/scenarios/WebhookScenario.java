package io.idempotent.examples.scenarios;

import io.idempotent.IdempotencyInProgressException;
import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.Mailer;
import io.idempotent.examples.shop.ProviderEvent;
import io.idempotent.examples.shop.WebhookHandler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Scenario 6: the payment provider sends three "payment succeeded" callbacks and, not having seen our
 * acknowledgements in time, delivers each again, out of order, with a new attempt number. One email
 * per event. A delivery that finds the same event still being handled (another instance has it) is
 * answered 409 and the provider delivers it again a little later, as providers do for any non-2xx.
 */
final class WebhookScenario implements Scenario {

  /** The provider's events, in the order it created them. */
  static final List<String> EVENTS = List.of("evt_6001", "evt_6002", "evt_6003");
  /** The order they arrive in: each twice, out of order. */
  static final List<Integer> DELIVERIES = List.of(1, 0, 2, 0, 2, 1);
  private static final Duration RETRY_AFTER = Duration.ofMillis(100);

  final Mailer mailer = new Mailer();
  final WebhookHandler handler = new WebhookHandler(mailer);
  int answered409;

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

  private static ProviderEvent event(int e, int attempt) {
    return new ProviderEvent(EVENTS.get(e), "alice/co-60" + (e + 1), customer(e), 4_200, attempt);
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws InterruptedException {
    OutcomeTally.Mark mark = env.tally().mark();
    Deque<ProviderEvent> outbox = new ArrayDeque<>();
    int[] attempts = new int[EVENTS.size()];
    for (int e : DELIVERIES) {
      outbox.add(event(e, ++attempts[e]));
    }
    List<String> arrived = new ArrayList<>();
    int calls = 0;
    for (ProviderEvent delivery = outbox.poll(); delivery != null; delivery = outbox.poll()) {
      calls++;
      arrived.add(delivery.id().substring(delivery.id().length() - 1));
      try {
        handler.onPaymentSucceeded(delivery); // 200
      } catch (IdempotencyInProgressException e) {
        answered409++; // the provider will try again
        int ev = EVENTS.indexOf(delivery.id());
        outbox.add(event(ev, ++attempts[ev]));
        Thread.sleep(RETRY_AFTER.toMillis());
      }
    }
    int mostToOne = 0;
    for (int e = 0; e < EVENTS.size(); e++) {
      mostToOne = Math.max(mostToOne, mailer.sentTo(customer(e)));
    }
    String how = "deliveries in order " + String.join(",", arrived)
        + (answered409 > 0 ? " (" + answered409 + " answered 409, delivered again)" : "")
        + (mostToOne <= 1 ? "; no event emailed twice" : "; an event emailed " + mostToOne + " times");
    return new ScenarioResult(id(), title(), calls, handler.executions(),
        mark.absorbedSince(WebhookHandler.NAME), mailer.sent(), "email", how);
  }
}
