package com.example.docs.messaging.nats;

import io.idempotent.Settlement;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import java.io.IOException;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/** docs/MESSAGING.md, NATS JetStream: a durable pull consumer that settles each message after its transaction. */
public class JetStreamOrderConsumer {

  private final JetStreamSubscription sub;
  private final Jdbi jdbi;
  private final OrderLedger ledger;

  public JetStreamOrderConsumer(JetStreamSubscription sub, Jdbi jdbi, OrderLedger ledger) {
    this.sub = sub;
    this.jdbi = jdbi;
    this.ledger = ledger;
  }

  /** The consumer of {@code stream} and the store, set up as the page prints. */
  public static JetStreamOrderConsumer start(JetStreamManagement jsm, JetStream js, String stream, Jdbi jdbi)
      throws IOException, JetStreamApiException {
    // README snippet: nats-setup
    return new JetStreamOrderConsumer(sub, jdbi, new OrderLedger());
  }

  // README snippet: nats-loop
}
