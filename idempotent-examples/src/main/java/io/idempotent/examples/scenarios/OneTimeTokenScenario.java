package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.shop.CheckoutForm;
import io.idempotent.examples.shop.HttpResponse;
import io.idempotent.examples.shop.PaymentGateway;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 8: the gift-card form carries a one-time token issued when it was rendered. The first form
 * is submitted five times at once (double click), then once more with the back button; a forged token
 * is tried; a second form is rendered and submitted. One charge per rendered form.
 *
 * <p>Tokens are issued per rendering, so every run of the demo renders new forms and this scenario
 * executes again; the other scenarios replay.
 */
final class OneTimeTokenScenario implements Scenario {

  static final int DOUBLE_CLICKS = 5;

  final PaymentGateway gateway = new PaymentGateway();
  final List<HttpResponse> responses = new ArrayList<>();
  CheckoutForm form;

  @Override
  public String id() {
    return "8";
  }

  @Override
  public String title() {
    return "Pre-issued one-time token";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws Exception {
    form = new CheckoutForm(env.idempotency(), gateway);
    String card = ClientRetryScenario.CARD;
    String first = form.render();
    responses.addAll(Concurrently.run(DOUBLE_CLICKS,
        i -> () -> form.submit(first, ClientRetryScenario.ALICE, card, 2_500)));
    responses.add(form.submit(first, ClientRetryScenario.ALICE, card, 2_500)); // back button, submit again
    responses.add(form.submit("forged-token", ClientRetryScenario.ALICE, card, 2_500));
    String second = form.render();
    responses.add(form.submit(second, ClientRetryScenario.ALICE, card, 5_000));
    long refused = responses.stream().filter(r -> r.status() != 201).count();
    return new ScenarioResult(id(), title(), responses.size(), form.executions(), refused,
        gateway.charges(), "gateway charge", "2 forms rendered; " + Responses.counts(responses));
  }
}
