package com.example.docs.messaging.amqp;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** docs/MESSAGING.md, Spring AMQP: ships each order once per order id. */
@Service
public class Shipments {

  private final JdbcTemplate jdbc;
  private final Warehouse warehouse;

  public Shipments(JdbcTemplate jdbc, Warehouse warehouse) {
    this.jdbc = jdbc;
    this.warehouse = warehouse;
  }

  // README snippet: spring-amqp-shipments
}
