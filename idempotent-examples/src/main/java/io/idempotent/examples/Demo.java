package io.idempotent.examples;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.examples.http.CheckoutServer;
import io.idempotent.examples.rabbitmq.BrokerUnreachableException;
import io.idempotent.examples.rabbitmq.RabbitBroker;
import io.idempotent.examples.scenarios.ResultTable;
import io.idempotent.examples.scenarios.Scenario;
import io.idempotent.examples.scenarios.ScenarioResult;
import io.idempotent.examples.scenarios.Scenarios;
import io.idempotent.examples.shop.OrderEventsConsumer;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.WebhookHandler;
import io.idempotent.runtime.Idempotency;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The demo: an order-and-payment shop whose methods are called more than once in every way a real
 * system calls them, on the embedded H2 file by default. It plays each scenario, counts what happened
 * and prints a table. Run it again and the records from the first run replay.
 *
 * <pre>
 * mvn -q -B -pl idempotent-examples -am package exec:java -DskipTests
 * mvn -q -B -pl idempotent-examples -am package exec:java -DskipTests -Dexec.args="--fresh --postgres"
 * mvn -q -B -pl idempotent-examples -am package exec:java -DskipTests -Dexec.args="--broker rabbitmq"
 * </pre>
 */
public final class Demo {

  private Demo() {}

  public static void main(String[] args) throws Exception {
    DemoOptions options;
    try {
      options = DemoOptions.parse(Arrays.asList(args), System.getProperties());
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(DemoOptions.USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      System.out.println(DemoOptions.USAGE);
      return;
    }
    try {
      if (options.http()) {
        serve(options);
        return;
      }
      run(options, System.out);
    } catch (IdempotencyConfigurationException e) {
      // most often: the H2 file is open in another process, or PostgreSQL is not reachable
      System.err.println("The demo could not open its store: " + e.getMessage()
          + (e.getCause() == null ? "" : "\n  caused by: " + e.getCause().getMessage()));
      System.exit(1);
    } catch (BrokerUnreachableException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  /** Serves the checkout over HTTP until the process is stopped. */
  private static void serve(DemoOptions options) throws Exception {
    DemoEnvironment env = DemoEnvironment.open(options.jdbiSettings());
    if (options.fresh()) {
      System.out.println("--fresh: forgot " + env.forgetEarlierRuns() + " records of earlier runs");
    }
    CheckoutServer server = CheckoutServer.start(env, options.port());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      env.close();
    }));
    System.out.println("idempotent demo: the shop's checkout at http://localhost:" + server.port() + "/orders"
        + " (records in " + env.location() + "); stop with Ctrl-C");
    server.join();
  }

  /**
   * Plays every scenario on the store {@code options} name, prints to {@code out}, returns the counts.
   *
   * @throws BrokerUnreachableException when {@code options} name a broker that does not answer
   */
  public static List<ScenarioResult> run(DemoOptions options, PrintStream out) throws Exception {
    // fail at start-up, not at the first call, if an annotation has a bad expression
    Idempotency.validate(OrderService.class, WebhookHandler.class, OrderEventsConsumer.class);
    RabbitBroker rabbit = null;
    if (options.broker().equals(DemoOptions.RABBITMQ)) {
      rabbit = new RabbitBroker(options.rabbitUri());
      String problem = rabbit.problem();
      if (!problem.isEmpty()) {
        throw new BrokerUnreachableException(problem + ": start it, or leave out --broker rabbitmq.");
      }
    }
    out.println("idempotent demo: an order-and-payment shop, @Idempotent at every layer");
    try (DemoEnvironment env = DemoEnvironment.open(options.jdbiSettings())) {
      out.println("Records are kept in: " + env.location());
      if (rabbit != null) {
        out.println("The consumer scenario's messages travel through " + rabbit + ".");
      }
      if (options.fresh()) {
        out.println("--fresh: forgot " + env.forgetEarlierRuns() + " records of earlier runs");
      }
      int earlier = env.liveRecords();
      out.println(earlier == 0
          ? "Records from an earlier run: none, so every scenario executes."
          : "Records from an earlier run: " + earlier + " found. They survived the restart, so the scenarios"
              + " replay them (--fresh starts over).");
      out.println();
      List<ScenarioResult> results = new ArrayList<>();
      for (Scenario scenario : Scenarios.all(options.today(), rabbit)) {
        out.println("  " + scenario.id() + ". " + scenario.title() + " ...");
        results.add(scenario.run(env));
      }
      out.println();
      out.print(ResultTable.render(results));
      out.println();
      out.println("Every number is counted: calls by the callers, executions inside the methods, absorbed calls"
          + " (replayed, skipped or refused) by an IdempotencyListener, side effects by the fake gateway,"
          + " mailer and warehouse and the ledger table.");
      out.println("Run it again: the records in " + env.location() + " survive, and the scenarios replay"
          + " (forms render new one-time tokens, so scenario 8 runs again).");
      return results;
    }
  }
}
