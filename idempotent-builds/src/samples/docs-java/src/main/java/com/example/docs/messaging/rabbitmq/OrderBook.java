package com.example.docs.messaging.rabbitmq;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** docs/MESSAGING.md, RabbitMQ: books each order once per message id, in the caller's transaction. */
public class OrderBook {

  private final long limitCents;

  public OrderBook(long limitCents) {
    this.limitCents = limitCents;
  }

  public static void createTable(Jdbi jdbi) {
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS booked_order (order_id VARCHAR(100) NOT NULL,"
        + " customer VARCHAR(100) NOT NULL, amount_cents BIGINT NOT NULL, message_id VARCHAR(200) NOT NULL)"));
  }

  // README snippet: rabbitmq-book
}
