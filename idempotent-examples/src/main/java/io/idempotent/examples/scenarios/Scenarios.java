package io.idempotent.examples.scenarios;

import io.idempotent.examples.rabbitmq.RabbitBroker;
import java.time.LocalDate;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The demo's scenarios, in the order the table shows them. Stateless: each call makes new instances. */
public final class Scenarios {

  private Scenarios() {}

  /** New instances of every scenario; {@code today} is the last day the settlement job settles. */
  public static List<Scenario> all(LocalDate today) {
    return all(today, null);
  }

  /**
   * As {@link #all(LocalDate)}; the consumer scenario's messages travel through {@code rabbit}, or an
   * in-process queue when it is null.
   */
  public static List<Scenario> all(LocalDate today, @Nullable RabbitBroker rabbit) {
    return List.of(
        new ClientRetryScenario(),
        new DoubleClickScenario(),
        new ReusedKeyScenario(),
        new TransientFailureScenario(),
        new FinalFailureScenario(),
        new ScheduledJobScenario(today),
        new WebhookScenario(),
        new ConsumerScenario(rabbit),
        new OneTimeTokenScenario(),
        new StatusGuardScenario());
  }
}
