package io.idempotent.examples.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.idempotent.examples.TestDatabases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A consumer JVM killed with SIGKILL while it holds unacknowledged deliveries, some of them in the middle of
 * their booking transaction; a second consumer JVM takes over. Each order is booked exactly once: a
 * transaction the kill cut short left nothing (PostgreSQL rolled it back with the dead connection), a
 * committed one left its record, which the redelivery replays.
 */
class RabbitConsumerKillTest {

  static final int ORDERS = 300;

  @Test
  void consumerKilledMidMessage_secondConsumerTakesOver_eachOrderBookedExactlyOnce() throws Exception {
    RabbitBroker broker = TestBroker.reach();
    String schema = TestDatabases.createPostgresSchema();
    Map<String, String> db = TestDatabases.postgres(schema);
    String id = UUID.randomUUID().toString().substring(0, 8);
    String prefix = "k" + id + "-";
    try (Connection connection = broker.connect("idempotent-test-publisher");
        Channel admin = connection.createChannel()) {
      DeadLetteredQueue queue = DeadLetteredQueue.named("idempotent-test.kill." + id).declare(admin);
      try {
        try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
          for (int i = 0; i < ORDERS; i++) {
            Order order = new Order(prefix + i, "customer", 500 + i);
            publisher.publish(queue.name(), "msg-" + order.id(), order.toBody());
          }
          publisher.confirm(Duration.ofSeconds(30));
        }
        Jdbi jdbi = Jdbi.create(db.get("url"), db.get("user"), db.get("password"));
        OrderBook.createTable(jdbi);
        BookedOrders booked = new BookedOrders(jdbi);

        // the first consumer books for a while, 10 ms per order on two channels, and dies without warning
        ConsumerProcess first = started.add(ConsumerProcess.start(db, queue.name(), false));
        Eventually.await("the first consumer booking", Duration.ofSeconds(30), () -> booked.count(prefix) >= 40,
            () -> "booked " + booked.count(prefix) + "; output: " + first.outputSoFar());
        first.kill();
        Thread.sleep(300); // a COMMIT the dead process had already sent is still carried out by the server
        int bookedAtKill = booked.count(prefix);
        assertThat(bookedAtKill).as("booked when the first consumer died").isBetween(40, ORDERS - 1);

        ConsumerProcess second = started.add(ConsumerProcess.start(db, queue.name(), true));
        Map<String, Long> counts = second.finish();

        BookedOnce.assertEach(booked.byOrder(prefix), prefix, ORDERS);
        assertThat(counts.get("redelivered")).as("deliveries the killed consumer had not acknowledged")
            .isPositive();
        assertThat(counts.get("acked")).as("acknowledged by the second consumer")
            .isEqualTo(counts.get("deliveries"));
        assertThat(counts.get("executions")).as("bookings run by the second consumer")
            .isEqualTo(ORDERS - bookedAtKill);
        assertThat(queue.ready(admin)).as("messages left after both consumers").isZero();
        assertThat(queue.deadLettered(admin)).as("dead-lettered").isZero();
      } finally {
        started.killAll();
        queue.delete(admin);
      }
    } finally {
      TestDatabases.dropPostgresSchema(schema);
    }
  }

  /** The consumer processes a test started, to kill any still running when it ends. */
  private final ConsumerProcesses started = new ConsumerProcesses();

  static final class ConsumerProcesses {
    private final List<ConsumerProcess> processes = new ArrayList<>();

    ConsumerProcess add(ConsumerProcess p) {
      processes.add(p);
      return p;
    }

    void killAll() {
      processes.forEach(p -> p.process.destroyForcibly());
    }
  }

  /** {@link OrderConsumerMain} in a JVM of its own, on this test's class path. */
  static final class ConsumerProcess {

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<Void> reader;

    private ConsumerProcess(Process process) {
      this.process = process;
      this.reader = CompletableFuture.runAsync(() -> {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            output.append(line).append('\n');
          }
        } catch (IOException e) {
          output.append(e).append('\n'); // the process was killed while a line was read
        }
      });
    }

    static ConsumerProcess start(Map<String, String> db, String queue, boolean exitWhenIdle) throws IOException {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      ProcessBuilder pb = new ProcessBuilder(List.of(java.toString(),
          "-cp", System.getProperty("java.class.path"),
          "-Dorders.queue=" + queue,
          "-Dorders.url=" + db.get("url"),
          "-Dorders.user=" + db.get("user"),
          "-Dorders.password=" + db.get("password"),
          "-Dorders.amqp=" + TestBroker.uri(),
          "-Dorders.pauseMillis=10",
          "-Dorders.exitWhenIdle=" + exitWhenIdle,
          OrderConsumerMain.class.getName()));
      pb.redirectErrorStream(true);
      return new ConsumerProcess(pb.start());
    }

    String outputSoFar() {
      return output.toString();
    }

    /** SIGKILL: no shutdown hook, no close, no acknowledgement; the kernel closes its sockets. */
    void kill() throws Exception {
      process.destroyForcibly();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
      reader.get(10, TimeUnit.SECONDS);
    }

    /** Waits for a consumer that exits when idle; returns the counts it printed. */
    Map<String, Long> finish() throws Exception {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the consumer stopped when idle").isTrue();
      reader.get(10, TimeUnit.SECONDS);
      assertThat(process.exitValue()).as("exit code; output:%n%s", output).isZero();
      Matcher m = Pattern.compile("deliveries=(\\d+) redelivered=(\\d+) acked=(\\d+) rejected=(\\d+)"
          + " requeued=(\\d+) executions=(\\d+)").matcher(output);
      assertThat(m.find()).as("counts in the output:%n%s", output).isTrue();
      Map<String, Long> counts = new HashMap<>();
      String[] names = {"deliveries", "redelivered", "acked", "rejected", "requeued", "executions"};
      for (int i = 0; i < names.length; i++) {
        counts.put(names[i], Long.parseLong(m.group(i + 1)));
      }
      return counts;
    }
  }
}
