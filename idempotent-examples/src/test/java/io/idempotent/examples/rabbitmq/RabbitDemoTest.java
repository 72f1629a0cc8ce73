package io.idempotent.examples.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.examples.Demo;
import io.idempotent.examples.DemoOptions;
import io.idempotent.examples.TestDatabases;
import io.idempotent.examples.scenarios.ScenarioResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The demo with {@code --broker rabbitmq}: its consumer scenario on a real queue, or one line when the broker is down. */
class RabbitDemoTest {

  @Test
  void demo_brokerRabbitmq_consumerScenarioShipsEachOrderOnceThroughTheQueue() throws Exception {
    TestBroker.reach();
    Properties p = new Properties();
    TestDatabases.freshH2().forEach((k, v) -> p.setProperty("idempotent.jdbi." + k, v));
    p.setProperty("demo.today", "2025-06-02");
    p.setProperty("demo.rabbitmq.uri", TestBroker.uri());
    DemoOptions options = DemoOptions.parse(List.of("--broker", "rabbitmq"), p);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<ScenarioResult> results;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      results = Demo.run(options, out);
    }
    String output = printed.toString(StandardCharsets.UTF_8);
    assertThat(output).contains("The consumer scenario's messages travel through RabbitMQ");
    ScenarioResult consumer = results.stream().filter(r -> r.id().equals("7")).findFirst().orElseThrow();
    assertThat(consumer.title()).contains("RabbitMQ");
    assertThat(consumer.sideEffects()).as("shipments: one per message").isEqualTo(6);
    assertThat(consumer.executions()).as("executions").isEqualTo(6);
    assertThat(consumer.calls()).as("deliveries: 1, 2 or 3 copies of 6 messages").isEqualTo(12);
    assertThat(consumer.absorbed()).as("copies replayed").isEqualTo(6);
    assertThat(consumer.how()).contains("12 deliveries acked after the handler returned, 0 requeued");
  }

  @Test
  void demo_brokerRabbitmqNotAnswering_saysSoInOneLineAndStops() throws Exception {
    String uri = "amqp://guest:guest@127.0.0.1:1"; // nothing listens on port 1
    Properties p = new Properties();
    p.setProperty("demo.rabbitmq.uri", uri);
    assertThatThrownBy(() -> Demo.run(DemoOptions.parse(List.of("--broker", "rabbitmq"), p), System.out))
        .isInstanceOf(BrokerUnreachableException.class)
        .hasMessageStartingWith("RabbitMQ does not answer at 127.0.0.1:1 (")
        .hasMessageNotContaining("\n");

    // the command line: one line on the error stream, exit code 1
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process demo = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        "-Ddemo.rabbitmq.uri=" + uri, Demo.class.getName(), "--broker", "rabbitmq").start();
    assertThat(demo.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String err = new String(demo.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    String out = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(demo.exitValue()).isEqualTo(1);
    assertThat(err.strip().lines()).as("what it said: %s", err).hasSize(1).first().asString()
        .startsWith("RabbitMQ does not answer at 127.0.0.1:1").endsWith("leave out --broker rabbitmq.");
    assertThat(out).isEmpty();
  }
}
