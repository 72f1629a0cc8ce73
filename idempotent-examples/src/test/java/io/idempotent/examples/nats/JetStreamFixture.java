package io.idempotent.examples.nats;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyEvent;
import io.idempotent.examples.TestDatabases;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.testservers.TestServers;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;

/**
 * A JetStream stream with one durable pull consumer, and a PostgreSQL schema with the bookings table and
 * the idempotency table, all named uniquely for one test; {@link #close()} deletes the stream (with its
 * consumer) and drops the schema. {@link #attach} opens the same ones again in another JVM, without
 * owning them. Opening one installs the engine the woven {@link OrderLedger#book} uses; closing uninstalls
 * it.
 */
final class JetStreamFixture implements AutoCloseable {

  final String stream;
  final String subject;
  final String durable;
  final String schema;
  final Connection nats;
  final JetStream js;
  final JetStreamManagement jsm;
  final Jdbi jdbi;
  final JdbiIdempotencyStore store;
  private final HikariDataSource pool;
  private final boolean owner;
  private final Map<IdempotencyEvent.Type, AtomicInteger> events = new EnumMap<>(IdempotencyEvent.Type.class);

  private JetStreamFixture(String stream, String subject, String durable, String schema, boolean owner)
      throws IOException, InterruptedException {
    this.stream = stream;
    this.subject = subject;
    this.durable = durable;
    this.schema = schema;
    this.owner = owner;
    for (IdempotencyEvent.Type t : IdempotencyEvent.Type.values()) {
      events.put(t, new AtomicInteger());
    }
    this.nats = Nats.connect("nats://" + TestServers.NATS.address());
    this.js = nats.jetStream();
    this.jsm = nats.jetStreamManagement();
    Map<String, String> db = TestDatabases.postgres(schema);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.get("url"));
    config.setUsername(db.get("user"));
    config.setPassword(db.get("password"));
    config.setMaximumPoolSize(6);
    config.setConnectionTimeout(5_000);
    this.pool = new HikariDataSource(config);
    this.jdbi = Jdbi.create(pool);
    OrderLedger.createTable(jdbi);
    this.store = JdbiIdempotencyStore.builder(jdbi)
        .transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED)
        .createSchema(true)
        .build();
    Idempotency.install(IdempotencyConfig.builder()
        .store(store)
        .listener(e -> events.get(e.type()).incrementAndGet())
        .build());
  }

  /**
   * A new stream keeping duplicates out for {@code duplicateWindow}, a durable pull consumer on it with
   * {@code ackWait} and {@code maxDeliver}, and a new schema. Skips the test when NATS or PostgreSQL is
   * unreachable.
   */
  static JetStreamFixture create(Duration ackWait, long maxDeliver, Duration duplicateWindow)
      throws IOException, InterruptedException, JetStreamApiException {
    TestServers.NATS.requireReachable();
    String id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String schema = TestDatabases.createPostgresSchema();
    JetStreamFixture f;
    try {
      f = new JetStreamFixture("ORDERS_" + id, "orders." + id, "booker_" + id, schema, true);
    } catch (IOException | InterruptedException | RuntimeException e) {
      TestDatabases.dropPostgresSchema(schema);
      throw e;
    }
    try {
      f.jsm.addStream(StreamConfiguration.builder()
          .name(f.stream)
          .subjects(f.subject)
          .storageType(StorageType.File)
          .duplicateWindow(duplicateWindow)
          .build());
      f.jsm.addOrUpdateConsumer(f.stream,
          JetStreamOrderConsumer.configuration(f.durable, f.subject, ackWait, maxDeliver));
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      f.close();
      throw e;
    }
    return f;
  }

  /** Opens an existing fixture's stream, consumer and schema, from another JVM; closing leaves them. */
  static JetStreamFixture attach(String stream, String subject, String durable, String schema)
      throws IOException, InterruptedException {
    return new JetStreamFixture(stream, subject, durable, schema, false);
  }

  /** Publishes {@code order} with {@code msgId} as its {@code Nats-Msg-Id}, and waits for the stream's ack. */
  PublishAck publish(Order order, String msgId) throws IOException, JetStreamApiException {
    return js.publish(message(order, msgId));
  }

  /** Publishes without waiting for the ack: join the future. */
  CompletableFuture<PublishAck> publishAsync(Order order, String msgId) {
    return js.publishAsync(message(order, msgId));
  }

  private NatsMessage message(Order order, String msgId) {
    Headers headers = new Headers().put("Nats-Msg-Id", msgId);
    return NatsMessage.builder().subject(subject).headers(headers).data(order.toJson()).build();
  }

  /** A consumer of this fixture's durable consumer, counting what it fetches. */
  RecordingConsumer consumer(OrderLedger ledger, int batchSize, Duration requeueDelay)
      throws IOException, JetStreamApiException {
    return new RecordingConsumer(js, stream, durable, jdbi, ledger, batchSize, requeueDelay);
  }

  ConsumerInfo consumerInfo() throws IOException, JetStreamApiException {
    return jsm.getConsumerInfo(stream, durable);
  }

  /** Nothing left to deliver and nothing delivered unsettled (a message past MaxDeliver counts as settled). */
  boolean drained() throws IOException, JetStreamApiException {
    ConsumerInfo info = consumerInfo();
    return info.getNumPending() == 0 && info.getNumAckPending() == 0;
  }

  long storedMessages() throws IOException, JetStreamApiException {
    return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
  }

  /** Committed bookings per order id. */
  Map<String, Integer> bookings() {
    Map<String, Integer> counts = new HashMap<>();
    jdbi.useHandle(h -> h.createQuery("SELECT order_id, COUNT(*) AS n FROM " + OrderLedger.TABLE
            + " GROUP BY order_id")
        .map((rs, ctx) -> Map.entry(rs.getString("order_id"), rs.getInt("n")))
        .forEach(e -> counts.put(e.getKey(), e.getValue())));
    return counts;
  }

  /** Committed bookings in all. */
  int bookingRows() {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + OrderLedger.TABLE)
        .mapTo(Integer.class).one());
  }

  /** Idempotency records of a final failure, committed. */
  int recordedFailures() {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + store.table()
            + " WHERE outcome_kind = 'FAILURE'")
        .mapTo(Integer.class).one());
  }

  /** How many events of {@code type} the engine of this JVM reported. */
  int events(IdempotencyEvent.Type type) {
    return events.get(type).get();
  }

  @Override
  public void close() {
    Idempotency.uninstall();
    try {
      if (owner) {
        jsm.deleteStream(stream);
      }
    } catch (IOException | JetStreamApiException e) {
      assertThat(e).as("deleting stream " + stream).isNull();
    } finally {
      try {
        nats.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      pool.close();
      if (owner) {
        TestDatabases.dropPostgresSchema(schema);
      }
    }
  }
}
