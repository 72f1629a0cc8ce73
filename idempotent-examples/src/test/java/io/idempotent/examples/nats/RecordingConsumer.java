package io.idempotent.examples.nats;

import io.idempotent.Settlement;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.jdbi.v3.core.Jdbi;

/**
 * The recipe's consumer, unchanged but for a record of each delivery it settles (which delivery of the
 * message it was, and how it was settled), and a hook that runs between a delivery's transaction and
 * its settlement.
 */
final class RecordingConsumer extends JetStreamOrderConsumer {

  /** One settled delivery: the server's delivery count of the message, and how it was settled. */
  record Delivery(long deliveredCount, Settlement settlement) {}

  private final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();
  private volatile BiConsumer<Message, Settlement> beforeSettle = (msg, settlement) -> {};

  RecordingConsumer(JetStream js, String stream, String durable, Jdbi jdbi, OrderLedger ledger, int batchSize,
      Duration requeueDelay) throws IOException, JetStreamApiException {
    super(js, stream, durable, jdbi, ledger, batchSize, requeueDelay);
  }

  /** Runs {@code hook} after each delivery's transaction ended and before the delivery is settled. */
  RecordingConsumer beforeSettle(BiConsumer<Message, Settlement> hook) {
    this.beforeSettle = hook;
    return this;
  }

  @Override
  protected void settle(Message msg, Settlement settlement) {
    beforeSettle.accept(msg, settlement);
    deliveries.computeIfAbsent(orderId(msg), k -> Collections.synchronizedList(new ArrayList<>()))
        .add(new Delivery(msg.metaData().deliveredCount(), settlement));
    super.settle(msg, settlement);
  }

  static String orderId(Message msg) {
    try {
      return Order.fromJson(msg.getData()).id();
    } catch (IOException e) {
      return "(unreadable)";
    }
  }

  /** The deliveries this consumer settled, per order id. */
  Map<String, List<Delivery>> deliveries() {
    return deliveries;
  }

  /**
   * Runs {@code consumers}, one thread each, until the fixture's durable consumer has nothing left to
   * deliver or settle, then stops them. Fails when that takes longer than {@code timeout}.
   */
  static void runUntilDrained(JetStreamFixture fixture, List<RecordingConsumer> consumers, Duration timeout)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(consumers.size());
    try {
      List<Future<?>> running = new ArrayList<>();
      for (RecordingConsumer c : consumers) {
        running.add(threads.submit(() -> {
          c.runUntil(stop::get);
          return null;
        }));
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!fixture.drained()) {
        for (Future<?> f : running) {
          if (f.isDone()) {
            f.get(); // a consumer thread failed: say why
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not drained within " + timeout + ": " + fixture.consumerInfo());
        }
        Thread.sleep(100);
      }
      stop.set(true);
      for (Future<?> f : running) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      stop.set(true);
      threads.shutdownNow();
    }
  }

  /** The deliveries of several consumers, merged per order id. */
  static Map<String, List<Delivery>> merged(List<RecordingConsumer> consumers) {
    Map<String, List<Delivery>> all = new ConcurrentHashMap<>();
    for (RecordingConsumer c : consumers) {
      c.deliveries().forEach((id, list) -> all.computeIfAbsent(id, k -> new ArrayList<>()).addAll(list));
    }
    return all;
  }
}
