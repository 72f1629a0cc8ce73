package com.example.docs.jdbi;

import io.idempotent.Idempotent;
import org.jdbi.v3.core.Handle;

/** The orders idempotent-jdbi's README creates, inside the caller's transaction or on their own. */
public class Orders {

  @Idempotent(key = "#orderId")
  public void create(Handle h, String orderId) {
    h.execute("INSERT INTO orders (id) VALUES (?)", orderId);
  }
}
