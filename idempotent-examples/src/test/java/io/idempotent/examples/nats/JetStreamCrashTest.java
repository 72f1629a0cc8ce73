package io.idempotent.examples.nats;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer JVM killed with {@code kill -9} while a batch is in flight, then a second consumer JVM on the
 * same durable consumer: every order is booked exactly once, none is lost. The first JVM is killed at
 * one of two points of a message: inside its transaction (the booking written, not committed: the
 * database rolls it back, and the redelivery books it), or between the commit and the ack (the
 * redelivery replays the record and is acknowledged without a second booking).
 */
class JetStreamCrashTest {

  private static final int ORDERS = 300;
  private static final int PAUSE_AT = 120;

  @ParameterizedTest(name = "killed {0}")
  @ValueSource(strings = {"in-transaction", "before-ack"})
  void consumerKilledMidBatch_secondConsumerFinishes_eachOrderBookedOnce(String killPoint) throws Exception {
    try (JetStreamFixture f = JetStreamFixture.create(Duration.ofSeconds(2), 10, Duration.ofMinutes(2))) {
      for (int i = 0; i < ORDERS; i++) {
        f.publishAsync(new Order(JetStreamConsumerTest.orderId(i), 100 + i), JetStreamConsumerTest.orderId(i));
      }
      f.nats.flush(Duration.ofSeconds(10));

      Child first = Child.start(f, killPoint, PAUSE_AT);
      String paused = first.awaitLine("PAUSED ", Duration.ofSeconds(60)).substring("PAUSED ".length());
      first.process.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback, no ack
      assertThat(first.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

      Map<String, Integer> committedAtKill = f.bookings();
      assertThat(committedAtKill.getOrDefault(paused, 0)).as("%s booked when killed %s", paused, killPoint)
          .isEqualTo(killPoint.equals("in-transaction") ? 0 : 1);
      assertThat(f.consumerInfo().getNumAckPending()).as("messages in flight at the kill").isPositive();

      Child second = Child.start(f, "none", 0);
      List<String> output = second.finish(Duration.ofSeconds(60));
      String done = output.stream().filter(l -> l.startsWith("DONE ")).findFirst().orElseThrow();
      int runs = Integer.parseInt(done.replaceAll(".*runs=(\\d+).*", "$1"));

      Map<String, Integer> bookings = f.bookings();
      assertThat(bookings).as("every order booked").hasSize(ORDERS);
      assertThat(bookings).allSatisfy((order, n) -> assertThat(n).as(order).isEqualTo(1));
      assertThat(f.bookingRows()).isEqualTo(ORDERS);
      assertThat(runs).as("the second consumer ran only the orders the first had not committed")
          .isEqualTo(ORDERS - committedAtKill.size());
      assertThat(output).as("the paused order redelivered to the second consumer and acknowledged")
          .anySatisfy(l -> assertThat(l).matches("SETTLED " + paused + " [2-9] ACK"));
      assertThat(f.drained()).isTrue();
    }
  }

  /** A consumer JVM started with the test's class path, its output read line by line. */
  private static final class Child {
    final Process process;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    final List<String> seen = new ArrayList<>();

    private Child(Process process) {
      this.process = process;
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String l = in.readLine(); l != null; l = in.readLine()) {
            lines.add(l);
          }
        } catch (IOException e) {
          lines.add("(output unreadable: " + e + ")");
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    static Child start(JetStreamFixture f, String pause, int pauseAt) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      System.getProperties().stringPropertyNames().stream()
          .filter(p -> p.startsWith("idempotent.test.") || p.equals("idempotent.requireServers"))
          .forEach(p -> command.add("-D" + p + "=" + System.getProperty(p)));
      command.addAll(List.of(JetStreamConsumerProcess.class.getName(),
          f.stream, f.subject, f.durable, f.schema, pause, Integer.toString(pauseAt)));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectErrorStream(true);
      return new Child(pb.start());
    }

    /** Waits for a line starting with {@code prefix}; returns it. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        String l = lines.poll(100, TimeUnit.MILLISECONDS);
        if (l != null) {
          seen.add(l);
          if (l.startsWith(prefix)) {
            return l;
          }
        } else if (!process.isAlive() && lines.isEmpty()) {
          break;
        }
      }
      process.destroyForcibly();
      throw new AssertionError("no line " + prefix + "…; output:\n" + String.join("\n", seen));
    }

    /** Waits for the process to exit with 0; returns every line it printed. */
    List<String> finish(Duration timeout) throws InterruptedException {
      boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        process.destroyForcibly();
      }
      Thread.sleep(100); // the reader reaches the end of the output
      lines.drainTo(seen);
      assertThat(exited).as("exited; output:\n%s", String.join("\n", seen)).isTrue();
      assertThat(process.exitValue()).as("exit code; output:\n%s", String.join("\n", seen)).isZero();
      return seen;
    }
  }
}
