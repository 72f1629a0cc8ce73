package io.idempotent.examples.scenarios;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.idempotent.IdempotencyEvent;
import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.rabbitmq.ConfirmedPublisher;
import io.idempotent.examples.rabbitmq.DeadLetteredQueue;
import io.idempotent.examples.rabbitmq.RabbitBroker;
import io.idempotent.examples.rabbitmq.SettlingConsumer;
import io.idempotent.examples.shop.Message;
import io.idempotent.examples.shop.OrderEventsConsumer;
import io.idempotent.examples.shop.Warehouse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 7: a broker with at-least-once delivery hands six "order paid" messages to three consumer
 * threads, redelivering some of them (lost acknowledgements), so a message and its redelivery may be
 * processed at the same time. Each message ships its order once.
 *
 * <p>The broker is an in-process queue, or a real RabbitMQ queue ({@code --broker rabbitmq}): the copies
 * are published with confirms and consumed on three channels with manual acknowledgements, each delivery
 * settled by {@link io.idempotent.Settlement} after the handler returned ({@link SettlingConsumer}).
 */
final class ConsumerScenario implements Scenario {

  static final int MESSAGES = 6;
  static final int CONSUMERS = 3;
  /** The header that carries which copy of its message a RabbitMQ message is. */
  static final String COPY = "x-demo-copy";

  final Warehouse warehouse = new Warehouse(Duration.ofMillis(100));
  final OrderEventsConsumer consumer = new OrderEventsConsumer(warehouse);
  final List<Message> deliveries = new ArrayList<>();
  private final @Nullable RabbitBroker rabbit;

  ConsumerScenario() {
    this(null);
  }

  /** The scenario on {@code rabbit}, or on an in-process queue when it is null. */
  ConsumerScenario(@Nullable RabbitBroker rabbit) {
    this.rabbit = rabbit;
  }

  @Override
  public String id() {
    return "7";
  }

  @Override
  public String title() {
    return rabbit == null ? "At-least-once consumer, redeliveries" : "At-least-once consumer on RabbitMQ";
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
    OutcomeTally.Mark mark = env.tally().mark();
    long calls;
    String how;
    if (rabbit == null) {
      calls = consumeInProcess();
      how = String.format("%d messages on %d consumer threads", MESSAGES, CONSUMERS);
    } else {
      SettlingConsumer settled = consumeFrom(rabbit);
      calls = settled.deliveries();
      how = String.format("%d messages from RabbitMQ on %d channels; %d deliveries acked after the handler"
          + " returned, %d requeued", MESSAGES, CONSUMERS, settled.acked(), settled.requeued());
    }
    how += String.format("; redeliveries that waited for the first: %d",
        mark.since(OrderEventsConsumer.NAME, IdempotencyEvent.Type.WAITED));
    return new ScenarioResult(id(), title(), calls, consumer.executions(),
        mark.absorbedSince(OrderEventsConsumer.NAME), warehouse.shipments(), "shipment", how);
  }

  /** Hands the deliveries to the consumer on threads of this process; returns how many it handled. */
  private long consumeInProcess() throws Exception {
    Queue<Message> queue = new ConcurrentLinkedQueue<>(deliveries);
    AtomicInteger calls = new AtomicInteger();
    Concurrently.run(CONSUMERS, i -> () -> {
      for (Message m = queue.poll(); m != null; m = queue.poll()) {
        consumer.onMessage(m);
        calls.incrementAndGet(); // then acknowledge
      }
      return null;
    });
    return calls.get();
  }

  /**
   * Publishes the deliveries to a new queue on {@code broker} (the copy number in a header) and consumes
   * them until each is settled; deletes the queue. Returns the consumer, for its counts.
   */
  private SettlingConsumer consumeFrom(RabbitBroker broker) throws Exception {
    DeadLetteredQueue queue = DeadLetteredQueue.named("idempotent-demo.order-paid." + UUID.randomUUID());
    try (Connection connection = broker.connect("idempotent-demo"); Channel admin = connection.createChannel()) {
      queue.declare(admin);
      try {
        try (ConfirmedPublisher publisher = ConfirmedPublisher.open(connection)) {
          for (Message m : deliveries) {
            publisher.publish(queue.name(), m.id(), m.orderId().getBytes(StandardCharsets.UTF_8),
                Map.of(COPY, m.deliveryCount()));
          }
          publisher.confirm(Duration.ofSeconds(30));
        }
        // prefetch 1: the three channels share the deliveries, so copies of a message overlap
        SettlingConsumer settling = SettlingConsumer.start(connection, queue.name(), CONSUMERS, 1,
            (properties, body) -> consumer.onMessage(new Message(String.valueOf(properties.getMessageId()),
                new String(body, StandardCharsets.UTF_8), copyOf(properties))));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (settling.acked() + settling.rejected() < deliveries.size() && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        settling.close();
        return settling;
      } finally {
        queue.delete(admin);
      }
    }
  }

  private static int copyOf(AMQP.BasicProperties properties) {
    Map<String, Object> headers = properties.getHeaders();
    Object copy = headers == null ? null : headers.get(COPY);
    return copy instanceof Number n ? n.intValue() : 1;
  }
}
