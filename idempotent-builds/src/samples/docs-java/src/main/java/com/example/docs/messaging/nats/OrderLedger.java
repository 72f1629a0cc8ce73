package com.example.docs.messaging.nats;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** docs/MESSAGING.md, NATS JetStream: books each order once, in the caller's transaction. */
public class OrderLedger {

  public static void createTable(Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS nats_order_booking (order_id VARCHAR(100) NOT NULL,"
        + " cents BIGINT NOT NULL)"));
  }

  // README snippet: nats-handler
}
