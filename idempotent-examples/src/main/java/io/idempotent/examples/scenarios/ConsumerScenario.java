package io.idempotent.examples.scenarios;

import io.idempotent.IdempotencyEvent;
import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.Message;
import io.idempotent.examples.shop.OrderEventsConsumer;
import io.idempotent.examples.shop.Warehouse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 7: a broker with at-least-once delivery hands six "order paid" messages to three consumer
 * threads, redelivering some of them (lost acknowledgements), so a message and its redelivery may be
 * processed at the same time. Each message ships its order once.
 */
final class ConsumerScenario implements Scenario {

  static final int MESSAGES = 6;
  static final int CONSUMERS = 3;

  final Warehouse warehouse = new Warehouse(Duration.ofMillis(100));
  final OrderEventsConsumer consumer = new OrderEventsConsumer(warehouse);
  final List<Message> deliveries = new ArrayList<>();

  @Override
  public String id() {
    return "7";
  }

  @Override
  public String title() {
    return "At-least-once consumer, redeliveries";
  }

  static String orderOf(int message) {
    return "alice/co-70" + (message + 1);
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws Exception {
    for (int m = 0; m < MESSAGES; m++) {
      int copies = 1 + m % 3; // delivered once, twice or three times
      for (int d = 1; d <= copies; d++) {
        deliveries.add(new Message("msg-70" + (m + 1), orderOf(m), d));
      }
    }
    Collections.shuffle(deliveries, new Random(7)); // redeliveries interleave with first deliveries
    Queue<Message> queue = new ConcurrentLinkedQueue<>(deliveries);
    AtomicInteger calls = new AtomicInteger();
    OutcomeTally.Mark mark = env.tally().mark();
    Concurrently.run(CONSUMERS, i -> () -> {
      for (Message m = queue.poll(); m != null; m = queue.poll()) {
        consumer.onMessage(m);
        calls.incrementAndGet(); // then acknowledge
      }
      return null;
    });
    String how = String.format("%d messages on %d consumer threads; redeliveries that waited for the first: %d",
        MESSAGES, CONSUMERS, mark.since(OrderEventsConsumer.NAME, IdempotencyEvent.Type.WAITED));
    return new ScenarioResult(id(), title(), calls.get(), consumer.executions(),
        mark.absorbedSince(OrderEventsConsumer.NAME), warehouse.shipments(), "shipment", how);
  }
}
