package io.idempotent.examples.scenarios;

import java.time.LocalDate;
import java.util.List;

/** The demo's scenarios, in the order the table shows them. Stateless: each call makes new instances. */
public final class Scenarios {

  private Scenarios() {}

  /** New instances of every scenario; {@code today} is the last day the settlement job settles. */
  public static List<Scenario> all(LocalDate today) {
    return List.of(
        new ClientRetryScenario(),
        new DoubleClickScenario(),
        new ReusedKeyScenario(),
        new TransientFailureScenario(),
        new FinalFailureScenario(),
        new ScheduledJobScenario(today),
        new WebhookScenario(),
        new ConsumerScenario(),
        new OneTimeTokenScenario(),
        new StatusGuardScenario());
  }
}
